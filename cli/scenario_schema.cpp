#include "cli/scenario_schema.h"

#include <sstream>
#include <string>
#include <vector>

#include "model/core/hazard_rules.h"
#include "scenarios/enums.h"
#include "scenarios/ir.h"
#include "scenarios/op_table.h"

namespace tmasim::cli {
namespace {

using nlohmann::json;

// "a, b, c" (the spelling of key lists and allowed_*() messages) -> ["a", "b", "c"].
std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const size_t b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
        if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
    }
    return out;
}

json enum_of(const std::string& allowed) { return {{"enum", split_list(allowed)}}; }

// Integers, expressions as strings ("i*32"), or lists of them: what the loader accepts for
// a value the schema does not narrow further.
json value() { return json::object(); }

json closed_object(const json& properties, const std::vector<std::string>& required = {}) {
    json o = {{"type", "object"}, {"additionalProperties", false}, {"properties", properties}};
    if (!required.empty()) o["required"] = required;
    return o;
}

json named_section(const json& entry) {
    return {{"type", "object"}, {"additionalProperties", entry}};
}

json op_definition() {
    std::vector<std::string> spellings;
    json branches = json::array();
    for (const OpInfo& info : kOpTable) {
        if (info.flags & kKernelOnly) continue;  // PTX instructions of kernels, not program ops
        spellings.push_back(info.spelling);
        json props = {{"op", value()}, {"by", {{"type", "string"}}}, {"label", {{"type", "string"}}}};
        if (std::string(info.spelling) != "loop") props["trace"] = {{"type", "boolean"}};
        for (const std::string& key : split_list(info.keys))
            props[key] = key == "body" ? json{{"type", "array"}, {"items", {{"$ref", "#/definitions/op"}}}} : value();
        branches.push_back({{"if", {{"properties", {{"op", {{"const", info.spelling}}}}}}},
                            {"then", {{"properties", props}, {"additionalProperties", false}}}});
    }
    return {{"type", "object"},
            {"required", {"op"}},
            {"properties", {{"op", {{"enum", spellings}, {"description", "the op (scenarios/op_table.h)"}}}}},
            {"allOf", branches}};
}

// One entry of `layouts:`: exactly one kind of layout (FORMAT.md, "Layouts").
json layout_entry() {
    const json blocked = closed_object({{"size_per_thread", value()},
                                        {"threads_per_warp", value()},
                                        {"warps_per_cta", value()},
                                        {"order", value()}},
                                       {"size_per_thread", "threads_per_warp", "warps_per_cta", "order"});
    const json linear = closed_object({{"reg", value()}, {"lane", value()}, {"warp", value()}, {"shape", value()}},
                                      {"lane", "shape"});
    const json slice = closed_object({{"dim", value()}, {"parent", value()}}, {"dim", "parent"});
    const json swizzled = closed_object(
        {{"vec", value()}, {"per_phase", value()}, {"max_phase", value()}, {"order", value()}},
        {"vec", "per_phase", "max_phase", "order"});
    const json nvmma = closed_object({{"swizzle_bytes", {{"enum", {32, 64, 128}}}},
                                      {"element_bits", {{"enum", {8, 16, 32}}}},
                                      {"transposed", {{"type", "boolean"}}}},
                                     {"swizzle_bytes", "element_bits"});
    json kinds = json::array();
    for (const auto& [key, body] : std::vector<std::pair<std::string, json>>{
             {"blocked", blocked}, {"slice", slice}, {"linear", linear}, {"swizzled_shared", swizzled},
             {"nvmma_shared", nvmma}})
        kinds.push_back(closed_object({{key, body}}, {key}));
    return {{"oneOf", kinds}};
}

// kernel: {cuda | ptx, entry, defines, params} (scenarios/FORMAT.md, Kernel scenarios). A param
// is one of its kinds; the loader checks the values, the schema the keys.
json kernel_definition() {
    const std::vector<std::string>& scalars = kernel_scalar_types();
    json kinds = json::array();
    kinds.push_back(closed_object({{"global", {{"type", "string"}}}, {"offset", value()}}, {"global"}));
    kinds.push_back(closed_object({{"tensormap", {{"type", "string"}}}}, {"tensormap"}));
    kinds.push_back(closed_object({{"bytes", {{"type", "string"}}}}, {"bytes"}));
    for (const std::string& s : scalars) kinds.push_back(closed_object({{s, value()}}, {s}));
    json field_props = {{"at", value()}, {"global", {{"type", "string"}}}, {"offset", value()},
                        {"tensormap", {{"type", "string"}}}, {"bytes", {{"type", "string"}}}};
    for (const std::string& s : scalars) field_props[s] = value();
    kinds.push_back(closed_object({{"blob", value()},
                                   {"align", value()},
                                   {"fields", {{"type", "array"}, {"items", closed_object(field_props, {"at"})}}}},
                                  {"blob"}));
    json k = closed_object({{"cuda", {{"type", "string"}}},
                            {"ptx", {{"type", "string"}}},
                            {"entry", {{"type", "string"}}},
                            {"defines", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                            {"params", {{"type", "array"}, {"items", {{"oneOf", kinds}}}}}},
                           {"entry"});
    k["oneOf"] = json::array({{{"required", {"cuda"}}}, {{"required", {"ptx"}}}});
    return k;
}

}  // namespace

json scenario_schema() {
    std::vector<std::string> rules;
    for (const model::HazardRule& r : model::HazardRules::all()) rules.push_back(r.id);
    const json init = {{"oneOf", json::array({{{"const", "iota"}},
                                              closed_object({{"fill", {{"type", "number"}}}}),
                                              closed_object({{"random", closed_object({{"seed", value()},
                                                                                       {"min", value()},
                                                                                       {"max", value()}})}}),
                                              closed_object({{"file", {{"type", "string"}}}}, {"file"})})}};
    // How `tmasim diff` compares the tensor's final bytes (scenarios/ir.h ImageCompare).
    const json compare = {{"oneOf", json::array({{{"enum", {"exact", "opaque"}}},
                                                 closed_object({{"ulps", {{"type", "integer"}, {"minimum", 1}}}},
                                                               {"ulps"})})}};
    const json properties = {
        {"scenario", {{"type", "string"}}},
        {"summary", {{"type", "string"}, {"description", "why the scenario exists; tmasim run prints it"}}},
        {"source", {{"type", "string"}}},
        {"arch", {{"enum", {"sm_90", "sm_100"}}}},
        {"launch", closed_object({{"grid", value()}, {"cluster", value()}, {"block", value()},
                                  {"dynamic_shared", {{"type", "integer"}, {"description", "kernel scenarios only"}}}})},
        {"global", named_section(closed_object({{"type", enum_of(allowed_dtypes())},
                                                {"shape", value()},
                                                {"init", init},
                                                {"compare", compare}},
                                               {"type", "shape"}))},
        {"tensormaps", named_section(closed_object({{"tensor", {{"type", "string"}}},
                                                    {"box", value()},
                                                    {"element_strides", value()},
                                                    {"swizzle", enum_of(allowed_swizzles())},
                                                    {"oob_fill", enum_of(allowed_oob_fills())},
                                                    {"interleave", enum_of(allowed_interleaves())},
                                                    {"location", enum_of(allowed_map_locations())}},
                                                   {"tensor", "box"}))},
        {"shared", named_section(closed_object(
                       {{"type", enum_of(allowed_dtypes())}, {"shape", value()}, {"align", value()}, {"array", value()}},
                       {"type", "shape"}))},
        {"barriers", named_section(closed_object({{"array", value()}, {"at", {{"type", "string"}}}, {"offset", value()}}))},
        {"accumulators", named_section(closed_object({{"n", value()}}, {"n"}))},
        {"layouts", named_section(layout_entry())},
        {"tiles", named_section(closed_object(
                      {{"type", enum_of(allowed_dtypes())}, {"shape", value()}, {"layout", {{"type", "string"}}}},
                      {"type", "shape", "layout"}))},
        {"program", {{"type", "array"}, {"minItems", 1}, {"items", {{"$ref", "#/definitions/op"}}}}},
        {"kernel", kernel_definition()},
        {"expect", closed_object({{"outcome", enum_of(allowed_outcomes())},
                                  {"rule", {{"enum", rules}}},
                                  {"op", {{"type", "string"}}}},
                                 {"outcome"})},
    };
    json schema = closed_object(properties, {"scenario"});
    // Exactly one of program (ops) and kernel (a CUDA C++ or PTX kernel).
    schema["oneOf"] = json::array({{{"required", {"program"}}, {"not", {{"required", {"kernel"}}}}},
                                   {{"required", {"kernel"}}, {"not", {{"required", {"program"}}}}}});
    schema["$schema"] = "http://json-schema.org/draft-07/schema#";
    schema["title"] = "tmasim scenario";
    schema["description"] = "A tmasim scenario (scenarios/FORMAT.md). Generated by `tmasim schema`.";
    schema["definitions"] = {{"op", op_definition()}};
    return schema;
}

}  // namespace tmasim::cli

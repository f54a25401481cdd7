// Inside model/ and device/, each folder is a floor and includes run one way, down: a file
// includes only files of its own floor or of floors below it (model/README.md,
// device/README.md). A file outside every floor's folder is a failure too, so that a new
// folder is given its floor instead of escaping the check.
#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cli_runner.h"

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = TMASIM_SOURCE_DIR;

// Each `#include "<component>/<folder>/..."` of `text` whose folder stands higher than
// `floor`, as "<file>: includes <target>".
std::vector<std::string> upward_includes(const std::string& component, const std::vector<std::string>& floors,
                                         const std::string& file, const std::string& floor, const std::string& text) {
    std::map<std::string, size_t> rank;
    for (size_t i = 0; i < floors.size(); ++i) rank[floors[i]] = i;
    std::vector<std::string> found;
    const std::regex include("#include \"" + component + "/([a-z_]+)/([^\"]+)\"");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), include); it != std::sregex_iterator(); ++it) {
        const std::string target_floor = (*it)[1];
        const auto target = rank.find(target_floor);
        if (target == rank.end() || target->second > rank.at(floor))
            found.push_back(file + ": includes " + component + "/" + target_floor + "/" + std::string((*it)[2]));
    }
    return found;
}

// Every source file of the component, checked against its floor.
std::vector<std::string> floor_violations(const std::string& component, const std::vector<std::string>& floors,
                                          const std::vector<std::string>& outside_floors) {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(kRoot / component)) {
        const std::string name = entry.path().filename().string();
        if (!entry.is_directory()) {
            const std::string ext = entry.path().extension().string();
            if (ext == ".cpp" || ext == ".h") found.push_back(component + "/" + name + ": outside every floor");
            continue;
        }
        if (std::find(outside_floors.begin(), outside_floors.end(), name) != outside_floors.end()) continue;
        if (std::find(floors.begin(), floors.end(), name) == floors.end()) {
            found.push_back(component + "/" + name + "/: a folder with no floor");
            continue;
        }
        for (const auto& f : fs::directory_iterator(entry.path())) {
            const std::string ext = f.path().extension().string();
            if (ext != ".cpp" && ext != ".h") continue;
            const std::string file = component + "/" + name + "/" + f.path().filename().string();
            for (auto& v : upward_includes(component, floors, file, name, tmasim_test::read_file(f.path().string()))) found.push_back(v);
        }
    }
    return found;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
}

const std::vector<std::string> kModelFloors = {"core", "state", "copy", "sm", "ops", "kernel", "run"};
const std::vector<std::string> kDeviceFloors = {"ptx_wrappers", "sanitizer", "emit", "launch", "kernels", "run", "bench"};

}  // namespace

TEST_CASE("model/ includes run one way down its floors", "[structure]") {
    const auto found = floor_violations("model", kModelFloors, {"arch"});
    INFO(joined(found));
    CHECK(found.empty());
}

TEST_CASE("device/ includes run one way down its floors", "[structure]") {
    const auto found = floor_violations("device", kDeviceFloors, {"reference", "scripts", "without_cuda"});
    INFO(joined(found));
    CHECK(found.empty());
}

TEST_CASE("the floor check names an include that climbs, and passes one that goes down", "[structure]") {
    const auto up = upward_includes("device", kDeviceFloors, "device/emit/codegen.cpp", "emit",
                                    "#include \"device/ptx_wrappers/ptx_wrappers.h\"\n#include \"device/run/run_device.h\"\n");
    REQUIRE(up.size() == 1);
    CHECK(up[0] == "device/emit/codegen.cpp: includes device/run/run_device.h");
    const auto unknown = upward_includes("model", kModelFloors, "model/sm/x.cpp", "sm", "#include \"model/new_floor/y.h\"\n");
    CHECK(unknown.size() == 1);
}

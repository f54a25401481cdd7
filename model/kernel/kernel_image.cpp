#include "model/kernel/kernel_image.h"

#include <fmt/format.h>

#include "model/kernel/alu.h"

namespace tmasim::model::kernel {

std::unique_ptr<KernelImage> KernelImage::make(const Scenario& s) {
    auto img = std::make_unique<KernelImage>();
    img->bound = ptx::parse_bound_kernel(s);
    img->layout = layout_kernel(s, img->bound);
    img->decoded = decode_kernel(img->bound, img->layout);
    // What the ALU cannot compute as decoded is refused before the run, with its line.
    for (const DInst& d : img->decoded.program.code) {
        if (d.op == Opc::unit || d.op == Opc::nop) continue;
        const std::string why = alu_refusal(d);
        if (why.empty()) continue;
        const ptx::Function& f = *img->bound.functions.at(static_cast<size_t>(d.fn));
        const ptx::Instruction& ins = f.instructions.at(static_cast<size_t>(d.ins));
        throw ScenarioError(SourceLoc{img->bound.module.path, ins.pos.line, ins.pos.col}, "kernel",
                            fmt::format("unsupported instruction `{}` ({}): {}", ins.opcode, instruction_place(img->bound, f, ins), why));
    }
    for (const ModuleGlobal& g : img->layout.module_globals) img->module_globals.push_back(g.init);
    img->op_thread.assign(s.program.size(), -1);
    return img;
}

const TensorMap* KernelImage::map_standing_for(const MapFields& f) {
    for (const TensorMap& m : standing_maps)
        if (m.name == f.map) return &m;
    TensorMap m;
    m.name = f.map;
    m.tensor = f.tensor;
    m.box = f.box;
    m.element_strides = f.element_strides;
    m.swizzle = f.swizzle;
    m.oob_fill = f.oob_fill;
    m.interleave = f.interleave;
    standing_maps.push_back(std::move(m));
    return &standing_maps.back();
}

SharedLayout KernelImage::shared_layout() const {
    SharedLayout l;
    l.total_bytes = layout.shared_bytes;
    return l;
}

}  // namespace tmasim::model::kernel

// The layout ops (layout.*, convert_layout) on the device.
#include "device/kernel_writer.h"

namespace tmasim::device {

void KernelWriter::emit_layout_op(const Op& op) {
    fail(op, "the device backend does not generate layout ops yet; run it with --backend model");
}

}  // namespace tmasim::device

#pragma once
// Text edits on a module's PTX: the device backend inserts clock reads and declarations
// around instructions whose byte spans the reader recorded (Instruction::text_begin/end,
// Function::body_begin). Edits insert; they never remove what the kernel wrote.
#include <cstddef>
#include <string>
#include <vector>

namespace tmasim::ptx {

struct TextEdit {
    size_t offset = 0;   // byte offset in the original text
    std::string text;    // inserted there
};

// The text with every edit inserted; edits at the same offset keep their order. Throws
// std::out_of_range for an offset past the end.
std::string apply_edits(const std::string& text, std::vector<TextEdit> edits);

}  // namespace tmasim::ptx

#include "scenarios/op_table.h"

namespace tmasim {

bool op_takes_key(OpKind k, const std::string& key) {
    const std::string keys = op_info(k).keys;
    size_t start = 0;
    while (start < keys.size()) {
        size_t end = keys.find(',', start);
        if (end == std::string::npos) end = keys.size();
        if (keys.compare(start, end - start, key) == 0) return true;
        start = keys.find_first_not_of(' ', end + 1);
        if (start == std::string::npos) break;
    }
    return false;
}

}  // namespace tmasim

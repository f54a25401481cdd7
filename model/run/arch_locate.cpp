#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "model/run/run_model.h"

namespace tmasim::model {

// An installed tmasim keeps its configs in <prefix>/share/tmasim/arch beside <prefix>/bin;
// a build tree uses the source tree's model/arch. TMASIM_ARCH_DIR in the environment wins,
// so a copied binary can be pointed at any folder.
std::string default_arch_dir() {
    namespace fs = std::filesystem;
    if (const char* env = std::getenv("TMASIM_ARCH_DIR"); env && *env) return env;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        const fs::path installed = exe.parent_path().parent_path() / "share" / "tmasim" / "arch";
        if (fs::is_directory(installed, ec)) return installed.string();
    }
    return TMASIM_ARCH_DIR;
}

}  // namespace tmasim::model

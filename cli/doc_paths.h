#pragma once
// Where tmasim's documents are, so that every document path it prints can be opened. The
// source tree cites them by their repository path ("docs/semantics.md B12"); an installed
// tmasim (<prefix>/bin/tmasim) has the same tree under <prefix>/share/doc/tmasim, where a
// repository path means nothing to a user outside the checkout: it prints the installed
// copy's absolute path instead.
#include <optional>
#include <string>

namespace tmasim::cli {

// <prefix>/share/doc/tmasim when this binary is installed (the folder exists beside its
// bin/), else "" (a build tree: its documents are the source tree's).
std::string installed_doc_dir();

// `text` with every repository document path in it ("docs/semantics.md",
// "scenarios/FORMAT.md", "scenarios/catalog/teach/README.md"), and every bare name only one
// installed document has ("semantics.md"), replaced by the installed copy's absolute path,
// where this tmasim is installed and has that copy; else unchanged.
std::string cite_docs(const std::string& text);

// The text of a repository document (its repository path): the installed copy, else the
// source tree's; nullopt when neither can be read. `where` gets the path it looked at.
std::optional<std::string> read_doc(const std::string& repo_path, std::string& where);

}  // namespace tmasim::cli

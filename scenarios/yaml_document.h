#pragma once
// Reads the one YAML document a scenario file holds.
#include <string>

#include <yaml-cpp/yaml.h>

namespace tmasim {

// The file's first document. A YAML syntax error, nesting past yaml-cpp's depth limit or a
// second document (after `---`) is a ScenarioError at its file:line:col.
YAML::Node load_single_yaml_document(const std::string& text, const std::string& path);

}  // namespace tmasim

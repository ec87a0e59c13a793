// The files of the project `uma new-backend` writes: templates/backend/, embedded by
// cmake/embed_template.cmake. Its backend is named uma_template (its C++ class
// UmaTemplateBackend), in file paths and texts alike; new-backend puts the new name there.
#pragma once

#include <cstddef>

namespace uma::tool {

inline constexpr const char* kTemplateName = "uma_template";
inline constexpr const char* kTemplateClassName = "UmaTemplate";

// kBackendTemplatePaths[i] (relative, '/'-separated) holds kBackendTemplateTexts[i].
extern const std::size_t kBackendTemplateFiles;
extern const char* const kBackendTemplatePaths[];
extern const char* const kBackendTemplateTexts[];

}  // namespace uma::tool

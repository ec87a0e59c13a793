# `uma new-backend`'s project, templates/backend/, embedded in the tool as strings
# (tools/uma/backend_template.h), so that an installed uma writes it from anywhere.
set(uma_template_dir ${CMAKE_CURRENT_SOURCE_DIR}/templates/backend)
file(GLOB_RECURSE uma_template_files RELATIVE ${uma_template_dir} CONFIGURE_DEPENDS
     ${uma_template_dir}/*)
list(SORT uma_template_files)
set(uma_template_paths "")
set(uma_template_texts "")
foreach(file ${uma_template_files})
  # Read when CMake configures: a changed file configures again.
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${uma_template_dir}/${file})
  file(READ ${uma_template_dir}/${file} text)
  string(APPEND uma_template_paths "    \"${file}\",\n")
  string(APPEND uma_template_texts "    R\"uma_file(${text})uma_file\",\n")
endforeach()
list(LENGTH uma_template_files uma_template_count)
configure_file(tools/uma/backend_template.cc.in
               ${CMAKE_CURRENT_BINARY_DIR}/generated/backend_template.cc @ONLY)
target_sources(uma PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/generated/backend_template.cc)

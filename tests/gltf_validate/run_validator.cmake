# CTest GltfValidator: converts the IQM/IQE corpus, the PIE and binary QMSH corpora (every file
# must convert), the repository's .qmsh.tmp examples and the repository's models to .glb and .gltf
# with meshport (and the repository's ModeDef models and scene), then runs the Khronos glTF
# Validator (validate.mjs) over all of them; fails when any output has an error or a warning, or
# when node or the validator is missing (never skips).
# Infos are printed, not counted: what remains is unavoidable without dropping data (tangents
# and texture coordinates of materials whose texture is not a PNG/JPEG file, NODE_EMPTY for a
# leaf joint of a skeleton without meshes).
#
#   cmake -DMESHPORT=<meshport executable> -DSOURCE_DIR=<repository> -DCORPUS=<shared/corpus/iqm>
#         -DPIE_CORPUS=<shared/corpus/pie> -DQMSH_CORPUS=<shared/corpus/qmsh>
#         -DWORK=<scratch folder, emptied first> -P run_validator.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var MESHPORT SOURCE_DIR CORPUS PIE_CORPUS QMSH_CORPUS WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_validator.cmake: -D${var}=... is required")
  endif()
endforeach()
set(here ${SOURCE_DIR}/tests/gltf_validate)

find_program(NODE node)
if(NOT NODE)
  message(FATAL_ERROR "GltfValidator: node (Node.js) was not found on PATH. Install Node.js and run "
                      "`npm ci --prefix tests/gltf_validate` (make test does both).")
endif()
if(NOT EXISTS ${here}/node_modules/gltf-validator/package.json)
  message(FATAL_ERROR "GltfValidator: the Khronos glTF Validator is not installed in ${here}/node_modules. "
                      "Run `npm ci --prefix tests/gltf_validate` (make test does).")
endif()

# Files that must convert, then every IQM / IQE of the corpus that meshport reads (some edge
# cases are deliberately unreadable: those are skipped, and listed).
set(required
  ${CORPUS}/lsalzman-iqm/mrfixit.iqm
  ${CORPUS}/derived/mrfixit.iqe
  ${SOURCE_DIR}/tests/data/cli/skinned.iqe
  ${SOURCE_DIR}/examples/tentacle.iqe)
# Every PIE of the Warzone 2100 corpus, and the repository's valid hand-written PIE files.
file(GLOB_RECURSE pie_files ${PIE_CORPUS}/*.pie)
list(LENGTH pie_files pie_count)
if(pie_count LESS 42)
  message(FATAL_ERROR "GltfValidator: expected the 42 PIE models in ${PIE_CORPUS}, found ${pie_count}")
endif()
file(GLOB repo_pie_files ${SOURCE_DIR}/tests/data/pie/feat-*.pie)
list(SORT pie_files)
list(SORT repo_pie_files)
list(APPEND required ${pie_files} ${repo_pie_files})
# Every binary QMSH sample (16) and the repository's valid .qmsh.tmp examples.
file(GLOB qmsh_files ${QMSH_CORPUS}/*.qmsh)
list(LENGTH qmsh_files qmsh_count)
if(qmsh_count LESS 16)
  message(FATAL_ERROR "GltfValidator: expected the 16 QMSH samples in ${QMSH_CORPUS}, found ${qmsh_count}")
endif()
file(GLOB repo_qmsh_tmp_files ${SOURCE_DIR}/tests/data/qmsh/cube.qmsh.tmp ${SOURCE_DIR}/tests/data/qmsh/skinned.qmsh.tmp)
list(SORT qmsh_files)
list(APPEND required ${qmsh_files} ${repo_qmsh_tmp_files})
# The repository's valid ModeDef models (morph targets per mode) and its .state scene.
file(GLOB modedef_files ${SOURCE_DIR}/tests/data/modedef/*.model)
list(FILTER modedef_files EXCLUDE REGEX "/err-[^/]*$")
list(SORT modedef_files)
list(APPEND required ${modedef_files} ${SOURCE_DIR}/tests/data/modedef/state/scene.state)
foreach(f ${required})
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "GltfValidator: ${f} not found")
  endif()
endforeach()
file(GLOB_RECURSE corpus_files ${CORPUS}/*.iqm ${CORPUS}/*.iqe)
list(SORT corpus_files)
set(inputs ${required} ${corpus_files})
list(REMOVE_DUPLICATES inputs)

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(outputs "")
set(skipped "")
foreach(in ${inputs})
  list(FIND required ${in} is_required)
  if(is_required LESS 0)
    execute_process(COMMAND ${MESHPORT} info ${in} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(NOT rc EQUAL 0)
      list(APPEND skipped ${in})
      continue()
    endif()
  endif()
  # A unique output name from the path: corpus/edge-cases/x.iqe -> edge-cases_x.iqe
  file(RELATIVE_PATH rel ${CORPUS} ${in})
  if(rel MATCHES "^\\.\\.")
    file(RELATIVE_PATH rel ${PIE_CORPUS} ${in})
  endif()
  if(rel MATCHES "^\\.\\.")
    file(RELATIVE_PATH rel ${QMSH_CORPUS} ${in})
  endif()
  if(rel MATCHES "^\\.\\.")
    file(RELATIVE_PATH rel ${SOURCE_DIR} ${in})
  endif()
  string(REPLACE "/" "_" stem "${rel}")
  foreach(ext glb gltf)
    execute_process(COMMAND ${MESHPORT} convert -q ${in} -o ${WORK}/${stem}.${ext} RESULT_VARIABLE rc
                    ERROR_VARIABLE err OUTPUT_VARIABLE out)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "GltfValidator: meshport convert ${in} -o ${stem}.${ext} failed:\n${out}${err}")
    endif()
    list(APPEND outputs ${WORK}/${stem}.${ext})
  endforeach()
endforeach()
foreach(s ${skipped})
  message(STATUS "not converted (meshport does not read it): ${s}")
endforeach()

list(LENGTH outputs n)
message(STATUS "validating ${n} files")
execute_process(COMMAND ${NODE} ${here}/validate.mjs --max-warnings 0 ${outputs} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "GltfValidator: the glTF Validator reported errors or warnings (above)")
endif()

# CTest GltfTools.GltfTransform and GltfTools.Gltfpack: meshport's .glb through the tools people
# chain after it (npm @gltf-transform/cli and gltfpack, pinned in package-lock.json), then back to
# the source format, with the flags docs/gltf-obj.md recommends ("After meshport: gltfpack and
# glTF-Transform"). Fails, never skips, when node or the npm packages are missing.
#
# For every model X (a PIE with levels, connectors and animation, two animated IQE files and a
# ModeDef .model with tetrahedra and a carton):
#   meshport convert X -o src/X.glb          meshport's .glb
#   meshport convert src/X.glb -o base/X     meshport's own round trip: the reference
#   TOOL src/X.glb tool/X.glb                the tool with the recommended flags
#   meshport convert tool/X.glb -o back/X    back to the source format
# gltf-transform: back/X must be byte-identical to base/X, and `meshport diff X back/X` must say
#   "same" (not for .model: ModeDef data records the path it was read from). A step the
#   recommended flags turn off (--join, which merges meshes) must not lose PIE data silently:
#   the conversion back to PIE then warns.
# gltfpack: keeps less (it drops mesh names, mesh, animation and root extras: see the doc), so
#   `meshport diff src/X.glb tool/X.glb` may list only the differences the doc names, and
#   back/X must convert; IQE/IQM keep everything but mesh names and the loop flag.
#
#   cmake -DMESHPORT=<meshport executable> -DSOURCE_DIR=<repository> -DTOOL=gltf-transform|gltfpack
#         -DWORK=<scratch folder, emptied first> -P run_tools.cmake
cmake_minimum_required(VERSION 3.25)

foreach(var MESHPORT SOURCE_DIR TOOL WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_tools.cmake: -D${var}=... is required")
  endif()
endforeach()
set(here ${SOURCE_DIR}/tests/gltf_tools)

find_program(NODE node)
if(NOT NODE)
  message(FATAL_ERROR "GltfTools: node (Node.js) was not found on PATH. Install Node.js and run "
                      "`npm ci --prefix tests/gltf_tools` (make test does both).")
endif()
if(TOOL STREQUAL "gltf-transform")
  set(tool_js ${here}/node_modules/@gltf-transform/cli/bin/cli.js)
elseif(TOOL STREQUAL "gltfpack")
  set(tool_js ${here}/node_modules/gltfpack/cli.js)
else()
  message(FATAL_ERROR "run_tools.cmake: TOOL must be gltf-transform or gltfpack, not '${TOOL}'")
endif()
if(NOT EXISTS ${tool_js})
  message(FATAL_ERROR "GltfTools: ${TOOL} is not installed in ${here}/node_modules. "
                      "Run `npm ci --prefix tests/gltf_tools` (make test does).")
endif()

# The flags docs/gltf-obj.md recommends: every step that merges, splits, welds, simplifies,
# prunes, resamples or compresses is off.
set(gltf_transform_keep
  --compress false --simplify false --join false --flatten false --instance false
  --palette false --prune false --weld false --resample false --texture-compress false)
set(gltfpack_keep -kn -km -ke -kv -noq -af 0 -ar 16 -at 24 -as 24)

set(models
  ${SOURCE_DIR}/tests/data/pie/feat-anim.pie
  ${SOURCE_DIR}/examples/tentacle.iqe
  ${SOURCE_DIR}/tests/data/cli/skinned.iqe
  ${SOURCE_DIR}/tests/data/modedef/full.model)
if(TOOL STREQUAL "gltfpack")
  list(APPEND models ${SOURCE_DIR}/tests/data/pie/feat-pie4.pie)
endif()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/src ${WORK}/base ${WORK}/tool ${WORK}/back)
set(failures "")

function(meshport)
  execute_process(COMMAND ${MESHPORT} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "GltfTools: meshport ${ARGN} failed (${rc}):\n${out}${err}")
  endif()
  set(meshport_out "${out}${err}" PARENT_SCOPE)
endfunction()

# Runs the tool on `in` to `out` with the given flags.
function(run_tool in out)
  if(TOOL STREQUAL "gltf-transform")
    set(cmd ${NODE} ${tool_js} optimize ${in} ${out} ${ARGN})
  else()
    set(cmd ${NODE} ${tool_js} -i ${in} -o ${out} ${ARGN})
  endif()
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out_text ERROR_VARIABLE err_text)
  if(NOT rc EQUAL 0 OR NOT EXISTS ${out})
    message(FATAL_ERROR "GltfTools: ${cmd} failed (${rc}):\n${out_text}${err_text}")
  endif()
endfunction()

# `meshport diff --json a b`: every difference's path must match one of the regular expressions
# in `allowed` (a CMake list: its square brackets must balance); others are appended to
# `failures` in the caller.
function(check_diff a b tolerance allowed)
  execute_process(COMMAND ${MESHPORT} diff --json --tolerance ${tolerance} ${a} ${b}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
  if(rc GREATER 1)
    message(FATAL_ERROR "GltfTools: meshport diff ${a} ${b} could not read a file:\n${err}")
  endif()
  string(JSON n LENGTH "${json}" differences)
  set(bad "")
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON path GET "${json}" differences ${i} path)
      set(ok FALSE)
      foreach(re ${allowed})
        if(path MATCHES "${re}")
          set(ok TRUE)
        endif()
      endforeach()
      if(NOT ok)
        string(JSON va GET "${json}" differences ${i} a)
        string(JSON vb GET "${json}" differences ${i} b)
        string(JSON msg GET "${json}" differences ${i} message)
        string(APPEND bad "\n    ${path}: ${va} vs ${vb} ${msg}")
      endif()
    endforeach()
  endif()
  if(bad)
    set(failures "${failures}\n  meshport diff ${a} ${b}:${bad}" PARENT_SCOPE)
  endif()
endfunction()

foreach(model ${models})
  get_filename_component(name ${model} NAME)      # tentacle.iqe
  get_filename_component(stem ${model} NAME_WLE)  # tentacle
  get_filename_component(ext ${model} LAST_EXT)   # .iqe
  meshport(convert -q ${model} -o ${WORK}/src/${stem}.glb)
  meshport(convert -q ${WORK}/src/${stem}.glb -o ${WORK}/base/${name})
  if(TOOL STREQUAL "gltf-transform")
    run_tool(${WORK}/src/${stem}.glb ${WORK}/tool/${stem}.glb ${gltf_transform_keep})
  else()
    run_tool(${WORK}/src/${stem}.glb ${WORK}/tool/${stem}.glb ${gltfpack_keep})
  endif()
  meshport(convert ${WORK}/tool/${stem}.glb -o ${WORK}/back/${name})
  set(back_log "${meshport_out}")

  if(TOOL STREQUAL "gltf-transform")
    file(SHA256 ${WORK}/base/${name} want)
    file(SHA256 ${WORK}/back/${name} got)
    if(NOT want STREQUAL got)
      string(APPEND failures "\n  ${name}: back/${name} differs from meshport's own round trip base/${name}")
    endif()
    if(NOT ext STREQUAL ".model")
      check_diff(${model} ${WORK}/back/${name} 1e-4 "")
    endif()
  else()
    # What gltfpack drops (docs/gltf-obj.md): glTF mesh names (so an attachment's mesh, named
    # after its mesh, reads as ""), mesh extras (PIE face channels, ModeDef mesh sources), root
    # extras (PIE document data) and animation extras (the loop flag). PIE data kept in scene
    # extras survives, but without its per-triangle data: any pie.* difference is accepted.
    # Skin weights become 8-bit and rotations 16-bit, hence the tolerance. gltfpack makes a
    # MASK material without a texture with alpha OPAQUE (the same picture: its texture was not
    # found here), so the PIE pages' alpha test reads back as opaque.
    set(allowed "^meshes\\[.*\\]\\.name$" "^meshes\\[.*\\]\\.face_channels\\[.*\\]$" "^attachments\\[.*\\]\\.mesh$"
                "^animations\\[.*\\]\\.loop$" "^pie$" "^pie\\." "^modedef\\.mesh_sources$" "^materials\\[.*\\]\\.alpha$")
    check_diff(${WORK}/src/${stem}.glb ${WORK}/tool/${stem}.glb 1e-3 "${allowed}")
    if(ext STREQUAL ".iqe")
      check_diff(${WORK}/base/${name} ${WORK}/back/${name} 1e-3
                 "^meshes\\[.*\\]\\.name$;^animations\\[.*\\]\\.loop$")
    endif()
  endif()
  message(STATUS "${TOOL}: ${name} done")
endforeach()

# A step the recommended flags turn off: --join merges the meshes of feat-pie4 (levels 1 and 3
# share a material), so level 3's mesh is gone into level 1's; meshport must say so when converting
# back to PIE (the level left without polygons) rather than write it empty as if it had been.
if(TOOL STREQUAL "gltf-transform")
  set(pie ${SOURCE_DIR}/tests/data/pie/feat-pie4.pie)
  meshport(convert -q ${pie} -o ${WORK}/src/feat-pie4.glb)
  string(REPLACE "--join;false" "--join;true" flags "${gltf_transform_keep}")
  run_tool(${WORK}/src/feat-pie4.glb ${WORK}/tool/feat-pie4-joined.glb ${flags})
  meshport(convert ${WORK}/tool/feat-pie4-joined.glb -o ${WORK}/back/feat-pie4.pie)
  if(NOT meshport_out MATCHES "warning")
    string(APPEND failures "\n  feat-pie4.pie through optimize --join true: converted back to PIE without a warning")
  endif()
endif()

if(failures)
  message(FATAL_ERROR "GltfTools (${TOOL}): meshport's data did not survive:${failures}")
endif()
message(STATUS "GltfTools (${TOOL}): every model kept its data")

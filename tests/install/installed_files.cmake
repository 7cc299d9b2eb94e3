# The files `cmake --install` puts below its prefix (docs/install.md "What is installed"), checked
# by InstallTree (run_install_test.cmake) and InstallDemoTree (run_demo_install_test.cmake).
# Needs VERSION SOVERSION LIBDIR MANDIR DATADIR DOCDIR.
function(expect_installed prefix)
  foreach(f bin/meshport include/meshport/meshport.h include/meshport/scene.h include/meshport/source/iqm.h
            ${LIBDIR}/libmeshport.a ${LIBDIR}/libmeshport.so ${LIBDIR}/libmeshport.so.${SOVERSION}
            ${LIBDIR}/libmeshport.so.${VERSION} ${LIBDIR}/cmake/meshport/meshportConfig.cmake
            ${LIBDIR}/cmake/meshport/meshportConfigVersion.cmake ${LIBDIR}/cmake/meshport/meshportTargets.cmake
            ${LIBDIR}/pkgconfig/meshport.pc ${MANDIR}/man1/meshport.1
            ${DATADIR}/bash-completion/completions/meshport ${DOCDIR}/LICENSE)
    if(NOT EXISTS ${prefix}/${f})
      message(FATAL_ERROR "not installed: ${f}")
    endif()
  endforeach()
endfunction()

# Headroom.app, self-contained: LibTorch's dylibs are copied into Contents/Frameworks (the
# programs' install RPATH is @executable_path/../Frameworks, and LibTorch's own install names
# are @rpath/...), then macdeployqt brings Qt, its plugins and the remaining non-system
# libraries (QCustomPlot, SentencePiece) and rewrites their install names. Written for a Mac
# with Qt 6 and LibTorch installed; it cannot run on the Linux build machine.
set(HEADROOM_BUNDLE "Headroom.app")

if(HEADROOM_GUI)
  file(GLOB HEADROOM_TORCH_DYLIBS "${TORCH_INSTALL_PREFIX}/lib/*.dylib")
  if(NOT HEADROOM_TORCH_DYLIBS)
    message(WARNING "no LibTorch dylibs under ${TORCH_INSTALL_PREFIX}/lib: the bundle will not run elsewhere")
  endif()
  install(FILES ${HEADROOM_TORCH_DYLIBS} DESTINATION ${HEADROOM_BUNDLE}/Contents/Frameworks)

  headroom_install_qt_deploy_script()

  # macdeployqt and install_name_tool invalidate signatures; Apple Silicon refuses to start
  # unsigned code, so sign ad hoc (a release signs again with a Developer ID).
  install(CODE "
    execute_process(
      COMMAND codesign --force --deep --sign - \"\${CMAKE_INSTALL_PREFIX}/${HEADROOM_BUNDLE}\"
      RESULT_VARIABLE headroom_codesign_result)
    if(NOT headroom_codesign_result EQUAL 0)
      message(FATAL_ERROR \"codesign of ${HEADROOM_BUNDLE} failed\")
    endif()")
endif()

# Windows: everything headroom.exe and headroom-cli.exe load sits next to them in bin\.
# LibTorch's DLLs are copied as a whole (PyTorch's documented way: some, such as the CUDA
# and cuDNN ones, are loaded at run time and no import table names them); windeployqt (Qt's
# deploy script) brings Qt and its plugins; the remaining DLLs (QCustomPlot, SQLite,
# SentencePiece) come from the runtime dependency set the targets were installed with.
file(GLOB HEADROOM_TORCH_DLLS "${TORCH_INSTALL_PREFIX}/lib/*.dll")
if(NOT HEADROOM_TORCH_DLLS)
  message(WARNING "no LibTorch DLLs under ${TORCH_INSTALL_PREFIX}/lib: the installer will not run elsewhere")
endif()
install(FILES ${HEADROOM_TORCH_DLLS} DESTINATION ${CMAKE_INSTALL_BINDIR})

set(HEADROOM_DLL_DIRECTORIES "${TORCH_INSTALL_PREFIX}/lib")
foreach(prefix IN LISTS CMAKE_PREFIX_PATH)
  list(APPEND HEADROOM_DLL_DIRECTORIES "${prefix}/bin")
endforeach()
install(RUNTIME_DEPENDENCY_SET headroom_runtime
  DESTINATION ${CMAKE_INSTALL_BINDIR}
  DIRECTORIES ${HEADROOM_DLL_DIRECTORIES}
  # System DLLs, and what the two steps above install already.
  PRE_EXCLUDE_REGEXES "^api-ms-" "^ext-ms-" "^[Qq]t6" "^torch" "^c10" "^fbgemm" "^asmjit"
  POST_EXCLUDE_REGEXES "[\\\\/][Ss]ystem32[\\\\/]" "[\\\\/][Ww]indows[\\\\/]")

if(HEADROOM_GUI)
  headroom_install_qt_deploy_script()
endif()

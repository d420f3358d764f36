# CPack: one configuration for every platform's packages. `cpack` in the build directory makes
# this platform's default set; `cpack -G NSIS` etc. picks one (see "Build a package" in
# docs/BUILDING.md and docs/PACKAGING.md).
set(CPACK_PACKAGE_NAME "headroom")
set(CPACK_PACKAGE_VENDOR "Headroom developers")
set(CPACK_PACKAGE_CONTACT "Headroom developers <headroom@headroom.invalid>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_HOMEPAGE_URL ${PROJECT_HOMEPAGE_URL})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
  "Headroom is a training workbench (Qt 6 desktop app and headroom-cli) for small GPT language
models and tabular classifiers on an Apple laptop, a small CUDA GPU or only a CPU. It
estimates memory before a run and recovers from out-of-memory errors by halving the
micro-batch while keeping the effective batch, the schedule and the step count.")
set(CPACK_PACKAGE_INSTALL_DIRECTORY "Headroom")
set(CPACK_PACKAGE_EXECUTABLES "headroom;Headroom")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_CURRENT_SOURCE_DIR}/NOTICE.txt)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CHECKSUM SHA256)
set(CPACK_VERBATIM_VARIABLES ON)

if(APPLE)
  set(CPACK_GENERATOR "DragNDrop")
elseif(WIN32)
  set(CPACK_GENERATOR "NSIS;ZIP")
else()
  set(CPACK_GENERATOR "TGZ;DEB")
  find_program(HEADROOM_RPMBUILD rpmbuild)
  if(HEADROOM_RPMBUILD)
    list(APPEND CPACK_GENERATOR RPM)
  endif()
endif()

# Debian: libraries found by dpkg-shlibdeps (LibTorch, Qt, QCustomPlot, SQLite, SentencePiece)
# plus what is loaded at run time and no ELF header names.
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE ${PROJECT_HOMEPAGE_URL})
set(CPACK_DEBIAN_COMPRESSION_TYPE "xz")
find_program(HEADROOM_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(HEADROOM_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
endif()
# libqt6svg6: the SVG icon engine and image plugin (the window and project icons);
# libopenblas0-pthread: LibTorch accepts any BLAS, and the reference one trains ~17x slower.
# The Qt SQL driver is not needed: project files go through the SQLite C library, which
# dpkg-shlibdeps sees.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libopenblas0-pthread")
if(HEADROOM_GUI)
  string(PREPEND CPACK_DEBIAN_PACKAGE_DEPENDS "libqt6svg6, ")
  # Qt's own translations (standard buttons and dialogs) and Wayland sessions; glyphs for the
  # Chinese interface only where no CJK font is installed yet (Chinese desktops have one).
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "qt6-translations-l10n, qt6-wayland")
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "fonts-noto-cjk")
endif()

# RPM (built and checked with rpm -qp here; the dependencies are what rpmbuild reads from the
# ELF files, so it installs on a distribution whose LibTorch has the same sonames).
set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_LICENSE "GPL-3.0-or-later")
set(CPACK_RPM_PACKAGE_GROUP "Applications/Engineering")
set(CPACK_RPM_PACKAGE_URL ${PROJECT_HOMEPAGE_URL})
set(CPACK_RPM_PACKAGE_AUTOREQ ON)
set(CPACK_RPM_PACKAGE_AUTOPROV OFF)
set(CPACK_RPM_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
# No /usr/lib/.build-id links: they would clash with other packages built from this tree.
set(CPACK_RPM_SPEC_MORE_DEFINE "%define _build_id_links none")
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
  /usr/share/applications /usr/share/metainfo /usr/share/mime /usr/share/mime/packages
  /usr/share/icons /usr/share/icons/hicolor /usr/share/icons/hicolor/scalable
  /usr/share/icons/hicolor/scalable/apps)

# Windows installer: Start menu entry (CPACK_PACKAGE_EXECUTABLES), .headroom association,
# uninstaller (always made by CPack), and an upgrade that removes the previous version first.
set(HEADROOM_NSIS_DIR ${CMAKE_CURRENT_SOURCE_DIR}/windows)
set(CPACK_NSIS_PACKAGE_NAME "Headroom")
set(CPACK_NSIS_DISPLAY_NAME "Headroom ${PROJECT_VERSION}")
set(CPACK_NSIS_INSTALL_ROOT "$PROGRAMFILES64")
set(CPACK_NSIS_MUI_ICON ${PROJECT_SOURCE_DIR}/resources/icons/platform/headroom.ico)
set(CPACK_NSIS_MUI_UNIICON ${PROJECT_SOURCE_DIR}/resources/icons/platform/headroom.ico)
set(CPACK_NSIS_INSTALLED_ICON_NAME "bin\\headroom.exe")
set(CPACK_NSIS_URL_INFO_ABOUT ${PROJECT_HOMEPAGE_URL})
set(CPACK_NSIS_CONTACT ${CPACK_PACKAGE_CONTACT})
set(CPACK_NSIS_ENABLE_UNINSTALL_BEFORE_INSTALL ON)
set(CPACK_NSIS_MUI_FINISHPAGE_RUN "headroom.exe")
set(CPACK_NSIS_EXTRA_INSTALL_COMMANDS "!include '${HEADROOM_NSIS_DIR}/register-project-type.nsh'")
set(CPACK_NSIS_EXTRA_UNINSTALL_COMMANDS "!include '${HEADROOM_NSIS_DIR}/unregister-project-type.nsh'")

# macOS disk image: Headroom.app, dragged to Applications.
set(CPACK_DMG_VOLUME_NAME "Headroom ${PROJECT_VERSION}")
set(CPACK_DMG_FORMAT "UDZO")
set(CPACK_DMG_SLA_USE_RESOURCE_FILE_LICENSE OFF)

include(CPack)

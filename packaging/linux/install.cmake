# Desktop integration on Linux: one reverse-DNS id (io.headroom.Headroom) names the desktop
# file, the icon, the AppStream component and QGuiApplication::desktopFileName. Debian's
# dpkg triggers refresh the desktop, MIME and icon caches, so the packages need no scripts.
if(HEADROOM_GUI)
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/${HEADROOM_APP_ID}.desktop
    DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/${HEADROOM_APP_ID}.metainfo.xml
    DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/${HEADROOM_APP_ID}.mime.xml
    DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
    RENAME ${HEADROOM_APP_ID}.xml)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/headroom.svg
    DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps
    RENAME ${HEADROOM_APP_ID}.svg)
endif()

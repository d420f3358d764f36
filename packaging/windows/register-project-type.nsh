; Included by CPack's NSIS installer (CPACK_NSIS_EXTRA_INSTALL_COMMANDS): Explorer opens
; *.headroom project files in Headroom and shows them with its icon. CPack's installer runs
; elevated for all users, so the class goes to HKCR.
WriteRegStr HKCR ".headroom" "" "Headroom.Project"
WriteRegStr HKCR ".headroom" "Content Type" "application/x-headroom-project"
WriteRegStr HKCR "Headroom.Project" "" "Headroom project"
WriteRegStr HKCR "Headroom.Project\DefaultIcon" "" "$INSTDIR\bin\headroom.exe,0"
WriteRegStr HKCR "Headroom.Project\shell\open\command" "" '"$INSTDIR\bin\headroom.exe" "%1"'
; SHCNE_ASSOCCHANGED: Explorer refreshes icons without a logout.
System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'

; Included by CPack's NSIS uninstaller (CPACK_NSIS_EXTRA_UNINSTALL_COMMANDS): removes what
; register-project-type.nsh wrote, leaving .headroom alone if another program took it over.
ReadRegStr $0 HKCR ".headroom" ""
StrCmp $0 "Headroom.Project" 0 +2
DeleteRegKey HKCR ".headroom"
DeleteRegKey HKCR "Headroom.Project"
System::Call 'shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)'

<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>headroom::ui::EmptyProjectView</name>
    <message>
        <source>No project open</source>
        <translation>Kein Projekt geöffnet</translation>
    </message>
    <message>
        <source>Create a project from your own text or CSV data, or open an existing Headroom project (.headroom).</source>
        <translation>Legen Sie ein Projekt aus Ihren eigenen Text- oder CSV-Daten an oder öffnen Sie ein vorhandenes Headroom-Projekt (.headroom).</translation>
    </message>
    <message>
        <source>New Project…</source>
        <translation>Neues Projekt…</translation>
    </message>
    <message>
        <source>Open Project…</source>
        <translation>Projekt öffnen…</translation>
    </message>
    <message>
        <source>This machine</source>
        <translation>Dieser Rechner</translation>
    </message>
</context>
<context>
    <name>headroom::ui::Language</name>
    <message>
        <source>System default</source>
        <translation>Systemstandard</translation>
    </message>
    <message>
        <source>System default (%1)</source>
        <translation>Systemstandard (%1)</translation>
    </message>
</context>
<context>
    <name>headroom::ui::MainWindow</name>
    <message>
        <source>Headroom</source>
        <translation>Headroom</translation>
    </message>
    <message>
        <source>&amp;New Project…</source>
        <translation>&amp;Neues Projekt…</translation>
    </message>
    <message>
        <source>Create a project from a text or CSV file</source>
        <translation>Ein Projekt aus einer Text- oder CSV-Datei anlegen</translation>
    </message>
    <message>
        <source>&amp;Open Project…</source>
        <translation>Projekt ö&amp;ffnen…</translation>
    </message>
    <message>
        <source>Open a Headroom project file</source>
        <translation>Eine Headroom-Projektdatei öffnen</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;Start Training</source>
        <translation>Training &amp;starten</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>&amp;Pausieren</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>S&amp;toppen</translation>
    </message>
    <message>
        <source>&amp;About Headroom</source>
        <translation>Ü&amp;ber Headroom</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>&amp;Lauf</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>Haupt</translation>
    </message>
    <message>
        <source>No project</source>
        <translation>Kein Projekt</translation>
    </message>
    <message>
        <source>About Headroom</source>
        <translation>Über Headroom</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Headroom %1&lt;/h3&gt;&lt;p&gt;Train real models on the hardware you have, without out-of-memory errors.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Headroom %1&lt;/h3&gt;&lt;p&gt;Trainieren Sie echte Modelle auf der Hardware, die Sie haben – ohne Speicherfehler.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Cannot open project</source>
        <translation>Projekt kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>Headroom could not open %1:
%2</source>
        <translation>Headroom konnte %1 nicht öffnen:
%2</translation>
    </message>
    <message>
        <source>%1 — Headroom</source>
        <translation>%1 — Headroom</translation>
    </message>
    <message>
        <source>Open Project</source>
        <translation>Projekt öffnen</translation>
    </message>
    <message>
        <source>Headroom projects (*.headroom);;All files (*)</source>
        <translation>Headroom-Projekte (*.headroom);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>&amp;Reload Project</source>
        <translation>Projekt &amp;neu laden</translation>
    </message>
    <message>
        <source>Runs: %1</source>
        <translation>Läufe: %1</translation>
    </message>
</context>
<context>
    <name>headroom::ui::PreferencesDialog</name>
    <message>
        <source>Preferences</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>A new language applies after Headroom restarts.</source>
        <translation>Eine neue Sprache gilt nach einem Neustart von Headroom.</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>&amp;Sprache:</translation>
    </message>
</context>
<context>
    <name>headroom::ui::ProjectView</name>
    <message>
        <source>running</source>
        <translation>läuft</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>pausiert</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>abgeschlossen</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>gestoppt</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>unterbrochen</translation>
    </message>
    <message>
        <source>Setting</source>
        <translation>Einstellung</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>Wert</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>Schritte</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>Verlust</translation>
    </message>
    <message>
        <source>Val. loss</source>
        <translation>Val.-Verlust</translation>
    </message>
    <message>
        <source>Peak memory</source>
        <translation>Spitzenspeicher</translation>
    </message>
    <message>
        <source>OOM recoveries</source>
        <translation>OOM-Erholungen</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>Gestartet</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>Läufe</translation>
    </message>
    <message>
        <source>%1 · recipe %2 · data %3</source>
        <translation>%1 · Rezept %2 · Daten %3</translation>
    </message>
    <message>
        <source>No runs yet. Train this project from a terminal with
headroom-cli train &quot;%1&quot;</source>
        <translation>Noch keine Läufe. Trainieren Sie dieses Projekt in einem Terminal mit
headroom-cli train &quot;%1&quot;</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Train real models on modest hardware without out-of-memory errors.</source>
        <translation>Echte Modelle auf bescheidener Hardware trainieren – ohne Speicherfehler.</translation>
    </message>
    <message>
        <source>Start, show the main window once, and exit 0.</source>
        <translation>Starten, das Hauptfenster einmal zeigen und mit 0 beenden.</translation>
    </message>
    <message>
        <source>Project file to open.</source>
        <translation>Zu öffnende Projektdatei.</translation>
    </message>
</context>
</TS>

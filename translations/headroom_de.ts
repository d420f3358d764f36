<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>headroom::ui::EmptyProjectView</name>
    <message>
        <source>No project open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Create a project from your own text or CSV data, or open an existing Headroom project (.headroom).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New Project…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Project…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This machine</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>headroom::ui::MainWindow</name>
    <message>
        <source>Headroom</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;New Project…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Create a project from a text or CSV file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open Project…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a Headroom project file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Start Training</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About Headroom</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Main</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About Headroom</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;h3&gt;Headroom %1&lt;/h3&gt;&lt;p&gt;Train real models on the hardware you have, without out-of-memory errors.&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Train real models on modest hardware without out-of-memory errors.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start, show the main window once, and exit 0.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Project file to open.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>

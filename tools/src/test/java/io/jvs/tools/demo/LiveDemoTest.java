package io.jvs.tools.demo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The live demo when something fails: one line saying what, status 1, and nothing of it left. Its success runs in
 * LauncherIT, through the launcher. Root only (namespaces), as CI runs.
 */
class LiveDemoTest
{
    @TempDir
    Path directory;

    @Test
    void shouldGiveItsDaemonTheCompileCommandsAndReferencesItWasGiven()
    {
        assertThat(LiveDemo.daemonFlags(java.util.List.of("-XX:-UseCompressedOops",
            "--enable-native-access=ALL-UNNAMED", "-XX:CompileCommandFile=/repo/tools/jvm/hot-path.compile", "-Xmx1g",
            "-XX:SharedArchiveFile=/repo/x.jsa")))
            .containsExactly("-XX:-UseCompressedOops", "-XX:CompileCommandFile=/repo/tools/jvm/hot-path.compile");
        assertThat(LiveDemo.daemonFlags(java.util.List.of("-Xmx1g"))).isEmpty();
    }

    @Test
    void shouldSayInOneLineThatTheDaemonDidNotStartAndRemoveEverything()
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();

        final int status = new LiveDemo(new PrintWriter(out, true), new PrintWriter(err, true), directory, 1,
            "io.jvs.tools.demo.NoSuchDaemon").run();

        assertThat(status).as(out.toString()).isEqualTo(1);
        assertThat(err.toString()).startsWith("jvs demo: jvs exited with status 1 before it was ready: ")
            .contains("NoSuchDaemon")
            .endsWith(" (the logs: " + directory.resolve("live") + ")\n")
            .hasLineCount(1);
        assertThat(out.toString()).contains("network up in ").doesNotContain("removed the namespaces");
        assertThat(DemoNetwork.list()).noneMatch(name -> name.startsWith("jvsdemo" + ProcessHandle.current().pid()));
        assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)).isEmpty();
        assertThat(directory.resolve("live/jvs.log")).content().contains("NoSuchDaemon");
        assertThat(directory.resolve("live/rs1.log")).content().startsWith(DemoHttpServer.READY);
    }
}

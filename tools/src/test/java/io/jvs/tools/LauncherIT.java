package io.jvs.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The launcher as an operator runs it, against the jar this build packaged (JVS_SKIP_BUILD=1, so it
 * does not start a build of its own from inside this one).
 */
class LauncherIT
{
    @TempDir
    Path directory;

    private record Run(int status, String out, String err)
    {
    }

    private static Run launch(final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(System.getProperty("jvs.launcher"));
        command.addAll(List.of(args));
        final ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("JVS_SKIP_BUILD", "1");
        final Process process = builder.start();
        final byte[] out = process.getInputStream().readAllBytes();
        final byte[] err = process.getErrorStream().readAllBytes();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    @Test
    void shouldListTheSubcommands() throws Exception
    {
        final Run run = launch("--help");
        assertThat(run.status()).isZero();
        assertThat(run.out()).contains("test", "simulate", "demo");
    }

    @Test
    void shouldRunSimulateThroughTheLauncher() throws Exception
    {
        final Path rules = Files.write(directory.resolve("web.rules"), List.of(
            "-A -t 10.0.0.100:80 -s wrr",
            "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m -w 1",
            "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m -w 2"));
        final Path flows = Files.write(directory.resolve("web.flows"), List.of(
            "tcp 1.2.3.4:5555 10.0.0.100:80",
            "tcp 1.2.3.5:5555 10.0.0.100:80",
            "tcp 1.2.3.6:5555 10.0.0.100:80",
            "tcp 1.2.3.7:5555 10.0.0.200:80"));
        final Run run = launch("simulate", "--rules", rules.toString(), "--flows", flows.toString());
        assertThat(run.err()).isEmpty();
        assertThat(run.status()).isZero();
        assertThat(run.out()).isEqualTo(
            "1.2.3.4:5555 10.0.0.100:80 -> 192.168.1.1:80\n" +
            "1.2.3.5:5555 10.0.0.100:80 -> 192.168.1.1:80\n" +
            "1.2.3.6:5555 10.0.0.100:80 -> 192.168.1.2:80\n" +
            "1.2.3.7:5555 10.0.0.200:80 -> -\n");
    }

    @Test
    void shouldExitNonZeroWithTheLineOfABadRule() throws Exception
    {
        final Path rules = Files.write(directory.resolve("bad.rules"), List.of("-A -t 10.0.0.100:80 -s nosuch"));
        final Run run = launch("simulate", "--rules", rules.toString(), "--flows", "random:10");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("bad.rules:1: Scheduler not found: nosuch");
    }

    @Test
    void shouldRunTheDemo() throws Exception
    {
        final Path dir = directory.resolve("demo");
        final Run run = launch("demo", "--dir", dir.toString(), "--packets", "20000");
        assertThat(run.err()).isEmpty();
        assertThat(run.status()).isZero();
        assertThat(run.out()).contains("frames in 20000 = forwarded ")
            .contains("TCP 10.0.0.100:80 wlc")
            .contains("-> 192.168.10.4:80")
            .contains(dir.resolve("report.svg").toString());
        assertThat(dir.resolve("report.svg")).isNotEmptyFile();
        assertThat(dir.resolve("forwarded.pcap")).isNotEmptyFile();
        assertThat(dir.resolve("report.json")).content().contains("\"frames\": {\"in\": 20000");
    }
}

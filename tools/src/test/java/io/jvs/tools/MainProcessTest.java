package io.jvs.tools;

import io.jvs.forwarder.synth.SynthSettings;
import io.jvs.forwarder.synth.TraceSynthesizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link JvsMain#main} in a JVM of its own, as the launcher runs it, for what only a whole process shows:
 * what libraries print on the process's own standard error, and a crash of the JVM.
 */
class MainProcessTest
{
    @TempDir
    Path dir;

    private record Exit(int status, String out, String err)
    {
    }

    private Exit main(final String... args) throws IOException, InterruptedException
    {
        return main(null, args);
    }

    /**
     * @param whileRunning run on this thread while the process runs (null: nothing).
     */
    private Exit main(final ThrowingAction whileRunning, final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"), JvsMain.class.getName()));
        command.addAll(List.of(args));
        final Path out = dir.resolve("stdout.txt");
        final Path err = dir.resolve("stderr.txt");
        final Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile())
            .redirectError(err.toFile()).start();
        try
        {
            if (whileRunning != null)
            {
                whileRunning.run();
            }
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the process ends").isTrue();
        }
        catch (final Exception ex)
        {
            process.destroyForcibly().waitFor();
            throw new AssertionError(ex);
        }
        return new Exit(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
    }

    private interface ThrowingAction
    {
        void run() throws Exception;
    }

    @Test
    void shouldGiveLibpcapsReasonForABadFilterAndNoSlf4jLine() throws Exception
    {
        final SynthSettings settings = SynthSettings.builder().packets(100).seed(2).build();
        final Path trace = dir.resolve("t.pcap");
        TraceSynthesizer.synthesize(settings, trace);
        final Path rules = Files.writeString(dir.resolve("t.rules"), TraceSynthesizer.rules(settings));

        final Exit exit = main("replay", "--rules", rules.toString(), "--in", trace.toString(), "--filter",
            "port http-nonsense", "--out", dir.resolve("o.pcap").toString());

        assertThat(exit.status()).isEqualTo(2);
        assertThat(exit.out()).isEmpty();
        assertThat(exit.err()).startsWith("jvs replay: --filter 'port http-nonsense' for link type ETHERNET: " +
            "libpcap: ").doesNotContain("SLF4J").doesNotContain("\tat ");
        assertThat(exit.err().lines()).hasSize(1);
        assertThat(dir.resolve("o.pcap")).doesNotExist();
    }

    /**
     * The capture is cut to 1000 bytes by "another process" once the replay has written its first megabyte
     * (the output's temporary file grows), so the reader's mapping faults under it.
     */
    @Test
    void shouldSayInOneLineThatTheCaptureShrankUnderTheReplayWithoutCrashingTheJvm() throws Exception
    {
        final SynthSettings settings = SynthSettings.builder().packets(300_000).seed(4).build();
        final Path trace = dir.resolve("big.pcap");
        TraceSynthesizer.synthesize(settings, trace);
        final long size = Files.size(trace);
        final Path rules = Files.writeString(dir.resolve("big.rules"), TraceSynthesizer.rules(settings));
        final Path out = dir.resolve("forwarded.pcap");

        final Exit exit = main(() ->
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (temporaryBytes() < 1 << 20 && System.nanoTime() < deadline)
            {
                Thread.sleep(1);
            }
            try (FileChannel channel = FileChannel.open(trace, StandardOpenOption.WRITE))
            {
                channel.truncate(1000);
            }
        }, "replay", "--rules", rules.toString(), "--in", trace.toString(), "--out", out.toString(), "--quiet");

        assertThat(exit.err()).isEqualTo("jvs replay: " + trace + ": changed while it was being read (" + size +
            " bytes when opened, 1000 now: truncated by another process?); nothing written\n");
        assertThat(exit.status()).isEqualTo(2);
        assertThat(exit.out()).isEmpty();
        assertThat(out).doesNotExist();
        assertThat(temporaryBytes()).isEqualTo(-1);
        try (Stream<Path> files = Files.list(dir))
        {
            assertThat(files.map(path -> path.getFileName().toString())).noneMatch(name -> name.startsWith("hs_err"));
        }
    }

    @Test
    void shouldDeleteItsTemporaryFilesWhenStoppedBySigterm() throws Exception
    {
        final SynthSettings settings = SynthSettings.builder().packets(300_000).seed(6).build();
        final Path trace = dir.resolve("big.pcap");
        TraceSynthesizer.synthesize(settings, trace);
        final Path rules = Files.writeString(dir.resolve("big.rules"), TraceSynthesizer.rules(settings));
        final Path old = Files.writeString(dir.resolve("forwarded.pcap"), "an older file");
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--enable-native-access=ALL-UNNAMED", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"), JvsMain.class.getName(), "replay", "--rules",
            rules.toString(), "--in", trace.toString(), "--out", old.toString(), "--quiet"));
        final Process process = new ProcessBuilder(command).directory(dir.toFile())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (temporaryBytes() < 1 << 20 && process.isAlive() && System.nanoTime() < deadline)
            {
                Thread.sleep(1);
            }
            assertThat(process.isAlive()).as("still replaying when stopped").isTrue();
            process.destroy();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        finally
        {
            process.destroyForcibly().waitFor();
        }

        assertThat(temporaryBytes()).as("no temporary left").isEqualTo(-1);
        assertThat(old).hasContent("an older file");
    }

    /** @return the size of the replay's temporary output, or -1 while there is none. */
    private long temporaryBytes() throws IOException
    {
        try (Stream<Path> files = Files.list(dir))
        {
            final List<Path> temporaries = files.filter(path -> path.getFileName().toString().endsWith(".tmp"))
                .toList();
            return temporaries.isEmpty() ? -1 : Files.size(temporaries.getFirst());
        }
    }
}

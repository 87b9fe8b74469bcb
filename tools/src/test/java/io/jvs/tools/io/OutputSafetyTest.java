package io.jvs.tools.io;

import io.jvs.forwarder.synth.SynthSettings;
import io.jvs.forwarder.synth.TraceSynthesizer;
import io.jvs.tools.CommandRun;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the tools never do to a user's files, through the real entry point: write over an input or one output
 * over another (compared as files: {@code ./} forms, hard and symbolic links), leave a file behind when an
 * output cannot be written, or change a file that existed before a run that failed.
 */
class OutputSafetyTest
{
    @TempDir
    Path dir;

    private Path trace;
    private Path rules;

    @BeforeEach
    void synthesise() throws IOException
    {
        final SynthSettings settings = SynthSettings.builder().packets(3000).services(1).serversPerService(2)
            .clients(100).seed(5).build();
        trace = dir.resolve("farm.pcap");
        TraceSynthesizer.synthesize(settings, trace);
        rules = Files.writeString(dir.resolve("farm.rules"), TraceSynthesizer.rules(settings));
    }

    @Test
    void shouldRefuseToWriteTheCaptureOverItselfInAnySpelling() throws Exception
    {
        final Path hardLink = Files.createLink(dir.resolve("hard.pcap"), trace);
        final Path symbolicLink = Files.createSymbolicLink(dir.resolve("sym.pcap"), trace.getFileName());
        final Path dotted = dir.resolve(".").resolve("farm.pcap");
        final var before = contents();

        for (final Path out : List.of(trace, dotted, hardLink, symbolicLink))
        {
            final CommandRun run = CommandRun.of("replay", "--rules", rules.toString(), "--in", trace.toString(),
                "--out", out.toString());

            assertThat(run.status()).as(out.toString()).isEqualTo(2);
            assertThat(run.out()).isEmpty();
            assertThat(run.err()).isEqualTo("jvs replay: --out " + out + " is the same file as --in " + trace +
                ": writing it would destroy the input\n");
        }
        final CommandRun decisions = CommandRun.of("replay", "--rules", rules.toString(), "--in",
            symbolicLink.toString(), "--decisions", rules.toString());
        assertThat(decisions.status()).isEqualTo(2);
        assertThat(decisions.err()).isEqualTo("jvs replay: --decisions " + rules + " is the same file as --rules " +
            rules + ": writing it would destroy the input\n");
        assertThat(contents()).isEqualTo(before);
    }

    @Test
    void shouldRefuseToWriteOverARulesFileTheConfigIncludes() throws Exception
    {
        final Path config = Files.writeString(dir.resolve("jvs.conf"), "rules farm.rules\n");
        final var before = contents();

        final CommandRun run = CommandRun.of("replay", "--config", config.toString(), "--in", trace.toString(),
            "--decisions", dir.resolve(".").resolve("farm.rules").toString());

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("jvs replay: --decisions " + dir.resolve("./farm.rules") +
            " is the same file as a rules statement of --config " + rules + ": writing it would destroy the input\n");
        assertThat(contents()).isEqualTo(before);
    }

    @Test
    void shouldRefuseTwoOutputsThatAreOneFileBeforeWritingEither() throws Exception
    {
        final Path existing = Files.writeString(dir.resolve("old.pcap"), "an older file");
        final var before = contents();

        final CommandRun synth = CommandRun.of("synth", "--packets", "10", "--out", existing.toString(),
            "--rules-out", dir.resolve(".").resolve("old.pcap").toString());
        final CommandRun notYetThere = CommandRun.of("synth", "--packets", "10", "--out",
            dir.resolve("new.pcap").toString(), "--rules-out", dir.resolve(".").resolve("new.pcap").toString());
        final CommandRun replay = CommandRun.of("replay", "--rules", rules.toString(), "--in", trace.toString(),
            "--report", dir.resolve("r.out").toString(), "--svg", dir.resolve("./r.out").toString());

        assertThat(synth.status()).isEqualTo(2);
        assertThat(synth.err()).isEqualTo("jvs synth: --rules-out " + dir.resolve("./old.pcap") +
            " is the same file as --out " + existing + ": give each output its own file\n");
        assertThat(notYetThere.status()).isEqualTo(2);
        assertThat(notYetThere.err()).isEqualTo("jvs synth: --rules-out " + dir.resolve("./new.pcap") +
            " is the same file as --out " + dir.resolve("new.pcap") + ": give each output its own file\n");
        assertThat(replay.status()).isEqualTo(2);
        assertThat(replay.err()).isEqualTo("jvs replay: --svg " + dir.resolve("./r.out") +
            " is the same file as --report " + dir.resolve("r.out") + ": give each output its own file\n");
        assertThat(contents()).isEqualTo(before);
    }

    @Test
    void shouldCheckEveryOutputDirectoryBeforeReadingAFrameAndLeaveNothingBehind() throws Exception
    {
        final Path old = Files.writeString(dir.resolve("forwarded.pcap"), "kept as it was");
        final var before = contents();

        for (final String option : List.of("--report", "--svg", "--decisions"))
        {
            final Path missing = dir.resolve("nodir").resolve("o.txt");
            final CommandRun run = CommandRun.of("replay", "--rules", rules.toString(), "--in", trace.toString(),
                "--out", old.toString(), option, missing.toString());

            assertThat(run.status()).as(option).isEqualTo(2);
            assertThat(run.out()).isEmpty();
            assertThat(run.err()).isEqualTo("jvs replay: " + option + " " + missing + ": no such directory " +
                dir.resolve("nodir") + "\n");
        }
        final Path file = dir.resolve("farm.rules");
        final CommandRun notADirectory = CommandRun.of("synth", "--packets", "5", "--out",
            file.resolve("x.pcap").toString());
        assertThat(notADirectory.status()).isEqualTo(2);
        assertThat(notADirectory.err()).isEqualTo("jvs synth: --out " + file.resolve("x.pcap") + ": " + file +
            " is not a directory\n");
        assertThat(contents()).isEqualTo(before);
    }

    /**
     * The tests run as root, whom permission bits do not stop; an immutable directory ({@code chattr +i})
     * refuses a new file to root too, with EPERM (the test checks that it does before relying on it).
     */
    @Test
    void shouldRefuseADirectoryThatTakesNoNewFileAndLeaveNothingBehind() throws Exception
    {
        final Path locked = Files.createDirectory(dir.resolve("locked"));
        final Path old = Files.writeString(dir.resolve("forwarded.pcap"), "kept as it was");
        final var before = contents();
        chattr("+i", locked);
        try
        {
            assertThat(locked.resolve("probe")).as("chattr +i must stop root creating a file")
                .satisfies(probe -> assertThat(canCreate(probe)).isFalse());
            final CommandRun run = CommandRun.of("replay", "--rules", rules.toString(), "--in", trace.toString(),
                "--out", old.toString(), "--svg", locked.resolve("o.svg").toString());

            assertThat(run.status()).isEqualTo(2);
            assertThat(run.out()).isEmpty();
            assertThat(run.err()).isEqualTo("jvs replay: --svg " + locked.resolve("o.svg") +
                ": cannot create a file in " + locked + ": operation not permitted\n");
        }
        finally
        {
            chattr("-i", locked);
        }
        assertThat(contents()).isEqualTo(before);
    }

    @Test
    void shouldReplaceAnExistingOutputOnlyWhenTheRunSucceedsKeepingItsMode() throws Exception
    {
        final Path old = Files.writeString(dir.resolve("forwarded.pcap"), "kept as it was");
        Files.setPosixFilePermissions(old, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r-----"));
        final var before = contents();

        final CommandRun failed = CommandRun.of("replay", "--rules", rules.toString(), "--in", trace.toString(),
            "--out", old.toString(), "--filter", "tcp and and");
        assertThat(failed.status()).isEqualTo(2);
        assertThat(contents()).isEqualTo(before);

        final CommandRun done = CommandRun.of("replay", "--rules", rules.toString(), "--in", trace.toString(),
            "--out", old.toString(), "--quiet");
        assertThat(done.err()).isEmpty();
        assertThat(done.status()).isZero();
        assertThat(Files.size(old)).isGreaterThan(10_000);
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(old)))
            .isEqualTo("rw-r-----");
        assertThat(temporaries()).isEmpty();
    }

    @Test
    void shouldWriteThroughASymbolicLinkAndToADevice() throws Exception
    {
        final Path target = Files.writeString(dir.resolve("target.pcap"), "old");
        final Path link = Files.createSymbolicLink(dir.resolve("link.pcap"), target.getFileName());

        final CommandRun run = CommandRun.of("synth", "--packets", "20", "--out", link.toString(), "--rules-out",
            "/dev/null");
        final CommandRun bothDiscarded = CommandRun.of("replay", "--rules", rules.toString(), "--in",
            trace.toString(), "--out", "/dev/null", "--decisions", "/dev/null", "--quiet");

        assertThat(bothDiscarded.err()).isEmpty();
        assertThat(bothDiscarded.status()).isZero();

        assertThat(run.err()).isEmpty();
        assertThat(run.status()).isZero();
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(Files.size(target)).isGreaterThan(24);
        assertThat(Path.of("/dev/null")).exists().satisfies(path -> assertThat(Files.isRegularFile(path)).isFalse());
    }

    @Test
    void shouldNameTheFileWhenTheDeviceIsFull()
    {
        final CommandRun run = CommandRun.of("synth", "--packets", "100000", "--out", "/dev/full");

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("jvs synth: cannot write /dev/full: no space left on device; " +
            "nothing written\n");
    }

    @Test
    void shouldNameTheReplaysOutputWhenItsDeviceIsFull()
    {
        final CommandRun run = CommandRun.of("replay", "--rules", rules.toString(), "--in", trace.toString(),
            "--out", "/dev/full", "--quiet");

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("jvs replay: /dev/full: no space left on device; nothing written\n");
    }

    @ParameterizedTest
    @ValueSource(strings = {"--report", "--svg"})
    void shouldNameTheReportWhenItsDeviceIsFull(final String option) throws IOException
    {
        final Path forwarded = dir.resolve("forwarded-beside-full.pcap");

        final CommandRun run = CommandRun.of("replay", "--rules", rules.toString(), "--in", trace.toString(),
            "--out", forwarded.toString(), option, "/dev/full", "--quiet");

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("jvs replay: /dev/full: no space left on device; nothing written\n");
        assertThat(forwarded).doesNotExist();
    }

    private static boolean canCreate(final Path probe)
    {
        try
        {
            Files.createFile(probe);
            Files.delete(probe);
            return true;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private static void chattr(final String flag, final Path path) throws Exception
    {
        final Process process = new ProcessBuilder("chattr", flag, path.toString()).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as("chattr " + flag + ": " + output).isZero();
    }

    /** Every file under the test's directory, with a digest of its bytes (links as links). */
    private TreeMap<String, String> contents() throws Exception
    {
        final TreeMap<String, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(dir))
        {
            for (final Path path : walk.toList())
            {
                final String name = dir.relativize(path).toString();
                if (Files.isSymbolicLink(path))
                {
                    files.put(name, "-> " + Files.readSymbolicLink(path));
                }
                else if (Files.isRegularFile(path))
                {
                    files.put(name, HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                        .digest(Files.readAllBytes(path))));
                }
                else
                {
                    files.put(name, "directory");
                }
            }
        }
        return files;
    }

    private List<Path> temporaries() throws IOException
    {
        try (Stream<Path> walk = Files.walk(dir))
        {
            return walk.filter(path -> path.getFileName().toString().endsWith(".tmp")).toList();
        }
    }
}

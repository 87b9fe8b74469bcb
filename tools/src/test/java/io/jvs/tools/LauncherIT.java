package io.jvs.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/**
 * The launcher as an operator runs it, against the jar this build packaged (JVS_SKIP_BUILD=1, so it
 * does not start a build of its own from inside this one). Its package check reads a list the test writes
 * (JVS_SYSTEM_PACKAGES), never the real one, so no test installs anything; where a test needs apt-get or
 * Maven, stand-ins on PATH record how they were called.
 */
class LauncherIT
{
    /**
     * A package no distribution has, with a command nothing provides.
     */
    private static final String ABSENT = "jvs-test-absent-package";
    private static final String ABSENT_COMMAND = "jvs-test-absent-command";

    @TempDir
    Path directory;

    private record Run(int status, String out, String err)
    {
    }

    private Run launch(final String... args) throws IOException, InterruptedException
    {
        return launch(Map.of(), args);
    }

    /**
     * Runs the launcher with JVS_SYSTEM_PACKAGES naming a list of packages every Debian system has (one
     * found by its command, one that only dpkg knows), unless the environment given says otherwise.
     */
    private Run launch(final Map<String, String> environment, final String... args)
        throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add(System.getProperty("jvs.launcher"));
        command.addAll(List.of(args));
        final ProcessBuilder builder = new ProcessBuilder(command);
        // The package check is under test: a JVS_SKIP_SETUP=1 that the suite itself was run with must not skip it.
        builder.environment().remove("JVS_SKIP_SETUP");
        builder.environment().put("JVS_SKIP_BUILD", "1");
        builder.environment().put("JVS_SYSTEM_PACKAGES",
            packageList("default", "bash bash   # found on PATH", "coreutils   # dpkg says installed").toString());
        builder.environment().putAll(environment);
        final Process process = builder.start();
        final byte[] out = process.getInputStream().readAllBytes();
        final byte[] err = process.getErrorStream().readAllBytes();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    private Path packageList(final String name, final String... lines) throws IOException
    {
        final List<String> content = new ArrayList<>();
        content.add("# a package list written by LauncherIT");
        content.addAll(List.of(lines));
        return Files.write(directory.resolve(name + ".packages"), content);
    }

    /**
     * A directory to put first on PATH, holding stand-ins for apt-get, sudo and mvn that append their
     * arguments, one call a line, to NAME.calls beside it. apt-get install also creates, in the directory,
     * the command of the absent package, as a real install would put it on PATH.
     */
    private Path standIns() throws IOException
    {
        final Path bin = Files.createDirectories(directory.resolve("bin"));
        for (final String name : List.of("apt-get", "sudo", "mvn"))
        {
            final String calls = directory.resolve(name + ".calls").toString();
            final Path made = bin.resolve(ABSENT_COMMAND);
            final String install = "apt-get".equals(name) ?
                "case \" $* \" in *' install '*) : >'" + made + "'; chmod +x '" + made + "';; esac\n" : "";
            final Path script = Files.writeString(bin.resolve(name),
                "#!/bin/sh\nprintf '%s\\n' \"$*\" >>'" + calls + "'\n" + install + "exit 0\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return bin;
    }

    private Map<String, String> withStandIns(final Path list) throws IOException
    {
        final Map<String, String> environment = new HashMap<>();
        environment.put("PATH", standIns() + ":" + System.getenv("PATH"));
        environment.put("JVS_SYSTEM_PACKAGES", list.toString());
        return environment;
    }

    private List<String> calls(final String name) throws IOException
    {
        final Path calls = directory.resolve(name + ".calls");
        return Files.exists(calls) ? Files.readAllLines(calls) : List.of();
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
    void shouldRunTheOfflineDemo() throws Exception
    {
        final Path dir = directory.resolve("demo");
        final Run run = launch("demo", "--offline", "--dir", dir.toString(), "--packets", "20000");
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

    /**
     * As root (CI is): the live demo, jvs between a client and three HTTP servers in namespaces, every server with
     * its share of the connections, and nothing of it left afterwards.
     */
    @Test
    void shouldRunTheLiveDemoAsRootWithEveryServerBalancedAndLeaveNothingBehind() throws Exception
    {
        final Path dir = directory.resolve("live-demo");
        final long start = System.nanoTime();
        final Run run = launch("demo", "--dir", dir.toString(), "--seconds", "3");
        final double seconds = (System.nanoTime() - start) / 1e9;

        assertThat(run.err()).as(run.out()).isEmpty();
        assertThat(run.status()).as(run.out()).isZero();
        final Matcher prefix = Pattern.compile("in network namespaces (jvsdemo\\d+-)\\*").matcher(run.out());
        assertThat(prefix.find()).as(run.out()).isTrue();
        for (int i = 1; i <= 3; i++)
        {
            // rs1     172.16.0.2:8080       1           52   16.5 %        16.7 %      1030
            final Matcher row = Pattern.compile("(?m)^rs" + i + " +172\\.16\\.0\\." + (i + 1) + ":8080 +" + i +
                " +(\\d+) +([0-9.]+) % +([0-9.]+) % +(\\d+)$").matcher(run.out());
            assertThat(row.find()).as(run.out()).isTrue();
            assertThat(Long.parseLong(row.group(1))).as("rs%d's connections", i).isPositive();
            assertThat(Double.parseDouble(row.group(3))).as("rs%d's weight share", i).isCloseTo(100.0 * i / 6,
                offset(0.05));
            // wrr deals out the connections in rounds of six (3, 2, 3, 1, 2, 3 here): off by less than a round.
            assertThat(Double.parseDouble(row.group(2))).as("rs%d's share", i).isPositive()
                .isCloseTo(100.0 * i / 6, offset(5.0));
            assertThat(Long.parseLong(row.group(4))).as("rs%d's requests", i).isPositive();
        }
        assertThat(run.out()).contains("jvs ready in ", " packets/s (both directions), ",
            "request latency as the client measured it: p50 ", " 0 failed, ",
            "jvs stopped cleanly on SIGTERM (exit status 0)", "removed the namespaces and processes");
        assertThat(seconds).as("the whole demo, in seconds").isLessThan(60);
        final String namespaces = new String(new ProcessBuilder("ip", "netns", "list").redirectErrorStream(true)
            .start().getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(namespaces).doesNotContain(prefix.group(1));
        assertThat(dir.resolve("live/jvs.conf")).content().contains("-s wrr", "-m -w 3");
        assertThat(dir.resolve("live/jvs.log")).content().contains(" info ready: ");
    }

    @Test
    void shouldRefuseAnUnknownSubcommandInOneLine() throws Exception
    {
        final Run run = launch("nosuch", "--help");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("jvs: unknown subcommand 'nosuch'; try 'tools/jvs --help'\n");
    }

    @Test
    void shouldGiveCtlsHelpAndCarryIpvsadmsArgumentsThroughALinkNamedIpvsadm() throws Exception
    {
        final Run help = launch("ctl", "--help");
        assertThat(help.status()).isZero();
        assertThat(help.out()).startsWith("Usage: jvs ctl").contains("ipvsadm");

        final Path missing = directory.resolve("no-daemon.sock");
        final Run ctl = launch("ctl", "--socket", missing.toString(), "-L", "-n");
        assertThat(ctl.status()).isEqualTo(2);
        assertThat(ctl.err()).startsWith("Can't initialize ipvs: ").contains(missing.toString());

        // A script written for IPVS calls ipvsadm: a link to the launcher by that name is ctl, --help included.
        final Path link = Files.createSymbolicLink(directory.resolve("ipvsadm"),
            Path.of(System.getProperty("jvs.launcher")).toAbsolutePath());
        final ProcessBuilder builder = new ProcessBuilder(link.toString(), "--help");
        builder.environment().put("JVS_SKIP_BUILD", "1");
        builder.environment().put("JVS_CONTROL_SOCKET", missing.toString());
        final Process process = builder.start();
        final String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(err).isEqualTo(2);
        assertThat(err).startsWith("Can't initialize ipvs: ").contains(missing.toString());
    }

    @Test
    void shouldRunACommandWithThePreloadLibraryAndTheControlSocket() throws Exception
    {
        final Run run = launch("with-ipvs", "--socket", "/tmp/jvs-test.sock", "--", "sh", "-c",
            "echo \"$LD_PRELOAD\"; echo \"$JVS_CONTROL_SOCKET\"");

        assertThat(run.status()).as(run.err()).isZero();
        final List<String> lines = run.out().lines().toList();
        assertThat(lines).hasSize(2);
        assertThat(Path.of(lines.get(0))).exists().hasFileName("libjvs-ipvs.so");
        assertThat(lines.get(1)).isEqualTo("/tmp/jvs-test.sock");
    }

    @Test
    void shouldRefuseWithIpvsWithoutACommand() throws Exception
    {
        final Run run = launch("with-ipvs", "--socket", "/tmp/jvs-test.sock", "--");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).isEqualTo(
            "jvs: with-ipvs: no command to run (tools/jvs with-ipvs [--socket PATH] -- COMMAND ...)\n");
    }

    @ParameterizedTest
    @ValueSource(strings = {"stat"})
    void shouldSayAnUnfinishedSubcommandIsNotWrittenYet(final String name) throws Exception
    {
        final Run run = launch(name, "--help");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo(
            "jvs: " + name + " is not written yet (a running daemon's counters: tools/jvs ctl -L -n --stats); " +
                "try 'tools/jvs --help'\n");
    }

    /**
     * The README's simulate example, twice: the first run writes the start-up cache (on JDK 25, the AOT cache of a
     * training run; before it, the class-data archive), the second uses it; neither prints anything but the
     * decisions (the JVM's cache messages, and the training run's output, would go to standard output).
     */
    @Test
    void shouldPrintTheReadmesDecisionsAndNothingElseWithAndWithoutTheStartUpCache() throws Exception
    {
        final Path rules = Files.write(directory.resolve("web.rules"), List.of("-A -t 10.0.0.100:80 -s wrr",
            "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -m -w 1", "-a -t 10.0.0.100:80 -r 192.168.1.1:80 -m -w 2"));
        final Path flows = Files.write(directory.resolve("web.flows"), List.of("tcp 1.2.3.4:5555 10.0.0.100:80",
            "tcp 1.2.3.5:5555 10.0.0.100:80", "tcp 1.2.3.6:5555 10.0.0.100:80",
            "-e -t 10.0.0.100:80 -r 192.168.1.1:80 -m -w 0", "tcp 1.2.3.7:5555 10.0.0.100:80",
            "tcp 1.2.3.8:5555 10.0.0.200:80"));
        // The launcher runs the JDK that runs this test (the one Maven was given, as tools/jvs test gives it).
        final Path archive = Path.of(System.getProperty("jvs.launcher")).resolveSibling("target")
            .resolve(Runtime.version().feature() >= 25 ? "jvs.aot" : "jvs.jsa");
        Files.deleteIfExists(archive);

        for (int run = 0; run < 2; run++)
        {
            final Run simulate = launch("simulate", "--rules", rules.toString(), "--flows", flows.toString());

            assertThat(simulate.err()).isEmpty();
            assertThat(simulate.status()).isZero();
            assertThat(simulate.out()).isEqualTo("""
                1.2.3.4:5555 10.0.0.100:80 -> 192.168.1.1:80
                1.2.3.5:5555 10.0.0.100:80 -> 192.168.1.1:80
                1.2.3.6:5555 10.0.0.100:80 -> 192.168.1.2:80
                1.2.3.7:5555 10.0.0.100:80 -> 192.168.1.2:80
                1.2.3.8:5555 10.0.0.200:80 -> -
                """);
            assertThat(archive).as("written by the first run").exists();
        }
    }

    /**
     * A training run that fails (here the demo refuses its arguments) leaves no cache but a marker, and the command
     * itself runs as ever; the next run of the same jar does not try again (the marker stays as it was), and a new
     * jar does. Only on JDK 25 and later, where the launcher writes the AOT cache.
     */
    @Test
    void shouldRunWithoutTheStartUpCacheWhenItsTrainingFailsAndNotTryAgainForTheSameJar() throws Exception
    {
        final Path target = Path.of(System.getProperty("jvs.launcher")).resolveSibling("target");
        final Path cache = target.resolve("jvs.aot");
        final Path failed = target.resolve("jvs.aot.failed");
        final Path jar = target.resolve("jvs.jar");
        final Map<String, String> failing = Map.of("JVS_AOT_TRAINING", "demo --offline --packets 0");
        Files.deleteIfExists(cache);
        Files.deleteIfExists(failed);
        try
        {
            final Run first = launch(failing, "--version");
            assertThat(first.status()).isZero();
            assertThat(first.out()).isEqualTo(JvsMain.VERSION + "\n");
            assertThat(first.err()).isEmpty();
            if (Runtime.version().feature() < 25)
            {
                assertThat(failed).doesNotExist();
                return;
            }
            assertThat(cache).doesNotExist();
            assertThat(failed).exists();
            final java.nio.file.attribute.FileTime marked = Files.getLastModifiedTime(failed);
            Thread.sleep(20);

            final Run second = launch(failing, "--version");
            assertThat(second.out()).isEqualTo(JvsMain.VERSION + "\n");
            assertThat(Files.getLastModifiedTime(failed)).as("not tried again for the same jar").isEqualTo(marked);

            Files.setLastModifiedTime(jar, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis()));
            final Run third = launch("--version");
            assertThat(third.out()).isEqualTo(JvsMain.VERSION + "\n");
            assertThat(cache).as("written for the new jar").exists();
            assertThat(failed).doesNotExist();
        }
        finally
        {
            Files.deleteIfExists(failed);
        }
    }

    /**
     * A replay's JVM inlines no method whose own compiled code is over 500 bytes, so that a capture's replay, mostly
     * the JIT's warm-up, ends sooner; the other commands keep C2's limit (the daemon's measured path runs slower with
     * the smaller one).
     */
    @Test
    void shouldGiveReplayAloneTheSmallerInliningLimit() throws Exception
    {
        final Map<String, String> printFlags = Map.of("JVS_JAVA_OPTS", "-XX:+PrintFlagsFinal");

        final Run replay = launch(printFlags, "replay", "--help");
        final Run simulate = launch(printFlags, "simulate", "--help");

        assertThat(replay.status()).isZero();
        assertThat(simulate.status()).isZero();
        assertThat(inlineSmallCode(replay.out())).isEqualTo("500 {command line}");
        assertThat(inlineSmallCode(simulate.out())).doesNotContain("command line").doesNotStartWith("500 ");
    }

    /**
     * Every command's JVM runs with the options of tools/jvm/jvs.options (uncompressed object references), and with
     * the start-up cache: the training run that writes it has the same options, as a JVM whose options differ from
     * the cache's cannot use it and says so in the cache's log (on JDK 25 and later, where the launcher writes one).
     */
    @Test
    void shouldRunEveryCommandWithTheJvmOptionsAndTheStartUpCacheWrittenForThem() throws Exception
    {
        final Map<String, String> flagsAndCacheWarnings =
            Map.of("JVS_JAVA_OPTS", "-XX:+PrintFlagsFinal -Xlog:aot=warning -Xlog:cds=warning");

        for (final String command : List.of("replay", "simulate", "bench"))
        {
            final Run run = launch(flagsAndCacheWarnings, command, "--help");

            assertThat(run.status()).as(command).isZero();
            assertThat(run.out()).as(command)
                .containsPattern("(?m)^\\s*bool UseCompressedOops\\s+= false\\s.*\\{command line\\}\\s*$")
                .doesNotContain("Unable to use AOT cache").doesNotContain("CDS will be disabled");
        }
    }

    /**
     * The pipeline's fast loop for established connections is compiled by C2 with everything it calls inlined, as
     * the benchmark and the daemon run it (the launcher's start-up cache and compile commands), with a NAT server's
     * replies live beside its clients' packets. C2 inlines into one method at most DesiredMethodLimit bytes of
     * bytecode in all (8000, not settable in a product JVM); past it the calls left over go out of line, silently,
     * and the loop slows (perf/RESULTS.md). Each call C2 refuses for that says "DesiredMethodLimit" in the method's
     * inlining tree. The burst's method, which calls the loop, is held to the same.
     */
    @Test
    void shouldCompileTheFastLoopWithEveryCallInlinedWhenRepliesAreLive() throws Exception
    {
        final String fastLoop = "io.jvs.core.pipeline.Pipeline::followEstablished";
        final Run bench = launch(Map.of("JVS_JAVA_OPTS", "-XX:+UnlockDiagnosticVMOptions -XX:+PrintCompilation " +
            "-XX:CompileCommand=quiet -XX:CompileCommand=PrintInlining," + fastLoop +
            " -XX:CompileCommand=PrintInlining,io.jvs.core.pipeline.Pipeline::process"),
            "bench", "pipeline", "--mode", "nat", "--replies", "--flows", "1000", "--seconds", "2");

        assertThat(bench.status()).as(bench.err()).isZero();
        assertThat(bench.out()).as("a C2 (tier 4) compile of the fast loop")
            .containsPattern("(?m)^\\s*\\d+\\s+\\d+\\s+4\\s+" + Pattern.quote(fastLoop) + " ")
            .contains("ns/packet=");
        assertThat(bench.out().lines().filter(line -> line.contains("DesiredMethodLimit")))
            .as("calls the fast loop's and the burst's compiles left out of line").isEmpty();
    }

    /**
     * The same for the daemon, whose fast loop has more live than the benchmark's: the offload's offers (AF_XDP
     * ports offload by default) and the neighbour table's paths, with the live demo's HTTP traffic both ways; and for
     * the rest of its per-packet path, each method that tools/jvm/hot-path.compile keeps apart (the burst's, the
     * general path's, a reply's), as new connections and closing ones take the general path. The demo hands its
     * daemon the launcher's compile commands file, so the test gives it one that is the launcher's with those
     * methods' inlining printed (into the daemon's log), and unlocks that for every JVM by JDK_JAVA_OPTIONS, which
     * the demo's daemon inherits with the environment.
     */
    @Test
    void shouldCompileTheDaemonsPacketPathWithinC2sInliningLimit() throws Exception
    {
        final Path commands = directory.resolve("print-inlining.compile");
        final List<String> lines = new ArrayList<>(Files.readAllLines(Path.of("jvm/hot-path.compile")));
        for (final String method : List.of("followEstablished", "process", "handle", "towardsClient"))
        {
            lines.add("PrintInlining io.jvs.core.pipeline.Pipeline::" + method);
        }
        Files.write(commands, lines);
        final Path dir = directory.resolve("live-demo");

        final Run run = launch(Map.of("JDK_JAVA_OPTIONS", "-XX:+UnlockDiagnosticVMOptions",
            "JVS_JAVA_OPTS", "-XX:CompileCommandFile=" + commands), "demo", "--dir", dir.toString(), "--seconds", "2");

        assertThat(run.status()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).contains(" 0 failed, ");
        final List<String> log = Files.readAllLines(dir.resolve("live/jvs.log"));
        assertThat(log).as("C2's inlining tree of the fast loop in the daemon's log")
            .anyMatch(line -> line.contains("ConnectionTable::lookupForward") && line.contains("force inline"))
            .anyMatch(line -> line.contains("Rewriter::natOutbound") && line.contains("force inline"))
            .anyMatch(line -> line.contains("PacketParser::parse") && line.contains("force inline"))
            .anyMatch(line -> line.contains("Pipeline::towardsServer") && line.contains("force inline"))
            .anyMatch(line -> line.contains("inline (hot)"));
        assertThat(log.stream().filter(line -> line.contains("DesiredMethodLimit")))
            .as("calls the pipeline's compiles left out of line").isEmpty();
    }

    /** @return InlineSmallCode's value and origin in -XX:+PrintFlagsFinal's table, e.g. "500 {command line}". */
    private static String inlineSmallCode(final String flags)
    {
        final Matcher line = Pattern.compile("(?m)^\\s*intx InlineSmallCode\\s+= (\\d+)\\s.*(\\{[a-z ]+\\})\\s*$")
            .matcher(flags);
        assertThat(line.find()).as("InlineSmallCode in -XX:+PrintFlagsFinal's output").isTrue();
        return line.group(1) + " " + line.group(2);
    }

    /**
     * The jar's picocli classes are of a version the start-up cache can hold (50, Java 6, or later) when the build
     * ran on JDK 24 or later, which rewrites picocli's Java 5 classes (tools/build/ArchivableClasses.java): every
     * command would otherwise load and verify them again at its start.
     */
    @Test
    void shouldShipPicocliInClassesTheStartUpCacheCanHold() throws Exception
    {
        final Path jar = Path.of(System.getProperty("jvs.launcher")).resolveSibling("target").resolve("jvs.jar");
        try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(jar.toFile()))
        {
            final List<String> old = new ArrayList<>();
            final var entries = zip.entries();
            while (entries.hasMoreElements())
            {
                final var entry = entries.nextElement();
                if (entry.getName().startsWith("picocli/") && entry.getName().endsWith(".class"))
                {
                    try (var in = zip.getInputStream(entry))
                    {
                        final byte[] header = in.readNBytes(8);
                        final int major = (header[6] & 0xFF) << 8 | header[7] & 0xFF;
                        if (major < 50)
                        {
                            old.add(entry.getName() + " " + major);
                        }
                    }
                }
            }
            if (Runtime.version().feature() >= 24)
            {
                assertThat(old).as("picocli classes below version 50 in %s", jar).isEmpty();
            }
            else
            {
                // Before JDK 24 the class-file API the step uses is not final: the build leaves picocli as it is.
                assertThat(old).as("picocli classes below version 50 in %s", jar).isNotEmpty();
            }
        }
    }

    @Test
    void shouldShowASubcommandsHelpThroughHelpAndRefuseHelpOfAnUnknownOne() throws Exception
    {
        final Run help = launch("help", "simulate");
        final Run nested = launch("help", "bench", "pipeline");
        final Run unknown = launch("help", "bogus");
        final Run empty = launch("");

        assertThat(help.status()).isZero();
        assertThat(help.out()).startsWith("Usage: jvs simulate ");
        assertThat(nested.status()).isZero();
        assertThat(nested.out()).startsWith("Usage: jvs bench pipeline ");
        assertThat(unknown.status()).isEqualTo(2);
        assertThat(unknown.out()).isEmpty();
        assertThat(unknown.err()).isEqualTo("jvs: unknown subcommand 'bogus'; try 'tools/jvs --help'\n");
        assertThat(empty.status()).isEqualTo(2);
        assertThat(empty.err()).isEqualTo("jvs: unknown subcommand ''; try 'tools/jvs --help'\n");
    }

    /** The launcher's own subcommands have help too, through help and --help, without running Maven. */
    @Test
    void shouldShowTheLaunchersOwnSubcommandsHelp() throws Exception
    {
        final Run helpTest = launch("help", "test");
        final Run testHelp = launch("test", "--help");
        final Run helpWithIpvs = launch("help", "with-ipvs");

        assertThat(helpTest.status()).isZero();
        assertThat(helpTest.out()).startsWith("  test [MVN_ARGS]   ").contains("test --mutation").doesNotContain("demo");
        assertThat(testHelp.status()).isZero();
        assertThat(testHelp.out()).isEqualTo(helpTest.out());
        assertThat(testHelp.err()).isEmpty();
        assertThat(helpWithIpvs.status()).isZero();
        assertThat(helpWithIpvs.out()).startsWith("Usage: tools/jvs with-ipvs ");
    }

    /**
     * The launcher refuses unknown subcommands itself, before any build: its list must hold every subcommand
     * of the jar, or that one becomes unreachable.
     */
    @Test
    void shouldHandEverySubcommandOfTheJarToTheJar() throws Exception
    {
        for (final String name : JvsMain.commandLine().getSubcommands().keySet())
        {
            if (!"help".equals(name))
            {
                final Run run = launch(name, "--help");
                assertThat(run.status()).as(name + ": " + run.err()).isZero();
                assertThat(run.out()).startsWith("Usage: jvs " + name + " ");
            }
        }
    }

    @Test
    void shouldPrintTheAptGetCommandAndRunNoMavenWhenAPackageIsMissingAndItIsNotRoot() throws Exception
    {
        final Path list = packageList("absent", "bash bash", ABSENT + " " + ABSENT_COMMAND + "  # nowhere",
            "coreutils");
        final Map<String, String> environment = withStandIns(list);
        environment.put("JVS_SETUP_AS_USER", "1");

        final Run run = launch(environment, "test", "-pl", "core");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo(
            "jvs: missing Debian packages (" + list + "): " + ABSENT + "; install them as root with:\n" +
            "  sudo apt-get update && sudo apt-get install -y --no-install-recommends " + ABSENT + "\n");
        assertThat(calls("mvn")).isEmpty();
        assertThat(calls("apt-get")).isEmpty();
        assertThat(calls("sudo")).isEmpty();
    }

    /**
     * As root (CI is), the missing package is installed with one apt-get update and one install, and the
     * tests then start: the Maven stand-in is called with the arguments given.
     */
    @Test
    void shouldInstallWhatIsMissingAsRootThenRunMaven() throws Exception
    {
        final Path list = packageList("absent", "bash bash", ABSENT + " " + ABSENT_COMMAND);

        final Run run = launch(withStandIns(list), "test", "-pl", "core");

        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.err()).startsWith("jvs: installing Debian packages (" + list + "): " + ABSENT + "\n");
        assertThat(calls("apt-get")).containsExactly(
            "-q -o DPkg::Lock::Timeout=60 -o Acquire::Retries=3 update",
            "-q -o DPkg::Lock::Timeout=60 -o Acquire::Retries=3 install -y --no-install-recommends " + ABSENT);
        assertThat(calls("sudo")).isEmpty();
        assertThat(calls("mvn")).singleElement().asString().startsWith("-B ").endsWith(" verify -pl core");
    }

    @Test
    void shouldRunPitOnTheModuleOfThePackagesGivenWithTheMutationProfile() throws Exception
    {
        final Path list = packageList("present", "bash bash", "coreutils");

        final Run run = launch(withStandIns(list), "test", "--mutation", "sched", "io.jvs.core.packet", "-o");

        assertThat(run.status()).as(run.err()).isZero();
        assertThat(calls("mvn")).singleElement().asString().startsWith("-B ").endsWith(
            " -Pmutation -pl core -DtargetClasses=io.jvs.core.sched.*,io.jvs.core.packet.* verify -o");
    }

    @Test
    void shouldRefuseMutationTestingOfPackagesOfTwoModules() throws Exception
    {
        final Path list = packageList("present", "bash bash", "coreutils");

        final Run run = launch(withStandIns(list), "test", "--mutation", "sched", "io.jvs.forwarder.config");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).endsWith(
            "jvs: test --mutation: packages of two modules (core, forwarder); run one module at a time\n");
        assertThat(calls("mvn")).isEmpty();
    }

    @Test
    void shouldCallNoAptGetWhenNothingIsMissing() throws Exception
    {
        final Path list = packageList("present", "bash bash", "coreutils");

        final Run run = launch(withStandIns(list), "setup");

        assertThat(run.status()).isZero();
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("jvs: all 2 Debian packages in " + list + " are present\n");
        assertThat(calls("apt-get")).isEmpty();
        assertThat(calls("sudo")).isEmpty();
    }

    @Test
    void shouldRefuseABadPackageListNamingItsLine() throws Exception
    {
        final Path list = packageList("bad", "bash bash", "Not A Package");

        final Run run = launch(withStandIns(list), "test");

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.err()).isEqualTo("jvs: " + list + ":3: expected PACKAGE [COMMAND], got: Not A Package\n");
        assertThat(calls("mvn")).isEmpty();
        assertThat(calls("apt-get")).isEmpty();
    }

    @Test
    void shouldListEveryPackageOfCiInTheRealList() throws Exception
    {
        final Path real = Path.of(System.getProperty("jvs.launcher")).resolveSibling("system-packages");
        final List<String> packages = Files.readAllLines(real).stream()
            .map(line -> line.replaceAll("#.*", "").trim())
            .filter(line -> !line.isEmpty())
            .map(line -> line.split(" +")[0])
            .toList();

        assertThat(packages).contains("maven", "ca-certificates", "libpcap0.8", "libpcap-dev", "iproute2", "ethtool",
            "tcpdump", "procps", "socat", "iperf3", "nftables", "ipvsadm", "keepalived", "netsniff-ng", "gcc",
            "libc6-dev", "bpftool").doesNotHaveDuplicates();
    }
}

package io.jvs.tools.demo;

import io.jvs.tools.JvsMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which demo {@code jvs demo} runs: the offline one without root (saying why, and how to get the live one) or with
 * {@code --offline}; the live one itself runs in LauncherIT, through the launcher.
 */
class DemoCommandTest
{
    private static final String NOT_ROOT = "jvs demo: not root, so jvs's data path offline instead of live (the " +
        "live demo makes network namespaces and runs jvs on AF_XDP); for it: sudo tools/jvs demo\n";

    @TempDir
    Path directory;

    private record Run(int status, String out, String err)
    {
    }

    private static Run run(final BooleanSupplier root, final String... args)
    {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final CommandLine commandLine = JvsMain.withSubcommand("demo", new DemoCommand(root));
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        final String[] withName = new String[args.length + 1];
        withName[0] = "demo";
        System.arraycopy(args, 0, withName, 1, args.length);
        final int status = commandLine.execute(withName);
        return new Run(status, out.toString(), err.toString());
    }

    @Test
    void shouldSayWhyAndHowToGetTheLiveDemoThenRunTheOfflineOneWithoutRoot()
    {
        final Run run = run(() -> false, "--dir", directory.toString(), "--packets", "2000");

        assertThat(run.err()).isEmpty();
        assertThat(run.status()).isZero();
        assertThat(run.out()).startsWith(NOT_ROOT + "\njvs demo, offline: a synthesised trace through jvs's data " +
            "path.\n").contains("frames in 2000 = forwarded ", directory.resolve("report.svg").toString());
        assertThat(directory.resolve("report.svg")).isNotEmptyFile();
        assertThat(directory.resolve("live")).doesNotExist();
    }

    @Test
    void shouldRunTheOfflineDemoWithoutAskingWhenToldTo()
    {
        final List<String> asked = new ArrayList<>();

        final Run run = run(() -> asked.add("root?"), "--offline", "--dir", directory.toString(), "--packets",
            "2000");

        assertThat(run.status()).isZero();
        assertThat(run.out()).startsWith("jvs demo, offline: ").doesNotContain("not root");
        assertThat(asked).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-1", "61", "NaN"})
    void shouldRefuseSecondsOutOfRangeBeforeDoingAnything(final String seconds)
    {
        final List<String> asked = new ArrayList<>();

        final Run run = run(() -> asked.add("root?"), "--seconds", seconds, "--dir", directory.toString());

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).startsWith("jvs demo: --seconds must be above 0 and at most 60, not ")
            .endsWith("; try 'tools/jvs demo --help'\n");
        assertThat(run.err().lines()).hasSize(1);
        assertThat(asked).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "Uid:\t0\t0\t0\t0           | true",
        "Uid:\t1000\t0\t1000\t1000  | true",
        "Uid:\t0\t1000\t0\t1000     | false",
        "Uid:\t1000\t1000\t1000\t1000 | false",
        "Gid:\t0\t0\t0\t0           | false"})
    void shouldTakeTheEffectiveUserIdOfTheStatusFile(final String uidLine, final boolean root)
    {
        final String status = "Name:\tjava\nUmask:\t0022\nState:\tR (running)\n" + uidLine.strip() +
            "\nVmPeak:\t  1000 kB\n";

        assertThat(DemoCommand.rootIn(status)).isEqualTo(root);
    }

    @Test
    void shouldKnowThisProcessesUser()
    {
        assertThat(DemoCommand.isRoot()).isEqualTo("root".equals(System.getProperty("user.name")));
    }
}

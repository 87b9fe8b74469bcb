package io.jvs.forwarder.daemon.it;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ipvsadm/keepalived preload library for the tests that run Debian's binaries through it: built by the same
 * script as {@code tools/jvs with-ipvs} uses, once per test class.
 */
public final class PreloadLibrary
{
    /** The repository's root (the tests run in a module's directory). */
    public static final Path ROOT = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();

    private PreloadLibrary()
    {
    }

    /**
     * Builds the library when it is missing or older than its source, and fails the test when it cannot.
     *
     * @return the library.
     */
    public static Path build() throws Exception
    {
        final Process build = new ProcessBuilder(ROOT.resolve("tools/native/build-preload.sh").toString())
            .redirectErrorStream(true).start();
        final String output = new String(build.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(build.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(build.exitValue()).as(output).isZero();
        final Path library = Path.of(output.strip());
        assertThat(library).exists();
        return library;
    }
}

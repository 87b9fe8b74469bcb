package io.jvs.perf;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The JVM options and compile commands {@code tools/jvs} gives the JVMs of the data path ({@code tools/jvm/jvs.options}
 * and {@code tools/jvm/hot-path.compile}), for the benchmarks of the pipeline, so that they measure the code the
 * product runs, as it runs. HotSpot ignores a missing command file without a word, so the benchmarks check for both
 * files first.
 */
final class HotPath
{
    /** The file, relative to the repository's root, where the benchmarks are run from. */
    static final String FILE = "tools/jvm/hot-path.compile";
    /** The JVM option that reads it. */
    static final String COMPILE_COMMANDS = "-XX:CompileCommandFile=" + FILE;
    /** The JVM options' argument file, relative to the repository's root. */
    static final String OPTIONS_FILE = "tools/jvm/jvs.options";
    /** The java launcher's argument that reads it. */
    static final String JVM_OPTIONS = "@" + OPTIONS_FILE;

    private HotPath()
    {
    }

    /**
     * @throws IllegalStateException when the benchmark does not run from the repository's root.
     */
    static void check()
    {
        for (final String file : new String[] {FILE, OPTIONS_FILE})
        {
            if (!Files.isRegularFile(Path.of(file)))
            {
                throw new IllegalStateException(file + " not found in " + Path.of("").toAbsolutePath() +
                    ": run the benchmarks from the repository's root, so that they use the product's JVM options " +
                    "and compile commands");
            }
        }
    }
}

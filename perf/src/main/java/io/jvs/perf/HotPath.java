package io.jvs.perf;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The compile commands {@code tools/jvs} gives every JVM it starts ({@code tools/jvm/hot-path.compile}), for the
 * benchmarks of the pipeline, so that they measure the code the product runs. HotSpot ignores a missing command
 * file without a word, so the benchmarks check for it first.
 */
final class HotPath
{
    /** The file, relative to the repository's root, where the benchmarks are run from. */
    static final String FILE = "tools/jvm/hot-path.compile";
    /** The JVM option that reads it. */
    static final String COMPILE_COMMANDS = "-XX:CompileCommandFile=" + FILE;

    private HotPath()
    {
    }

    /**
     * @throws IllegalStateException when the benchmark does not run from the repository's root.
     */
    static void check()
    {
        if (!Files.isRegularFile(Path.of(FILE)))
        {
            throw new IllegalStateException(FILE + " not found in " + Path.of("").toAbsolutePath() +
                ": run the benchmarks from the repository's root, so that they use the product's compile commands");
        }
    }
}

package io.jvs.core.pcap;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.fail;

/**
 * Where tcpdump's test captures are ({@code shared/corpus/tcpdump-tests} beside the checkout). A test that
 * needs them fails when they are missing, so a machine without them cannot pass for green.
 */
public final class TcpdumpCorpus
{
    private static final String CORPUS = "shared/corpus/tcpdump-tests";

    private TcpdumpCorpus()
    {
    }

    /**
     * @return the corpus directory: {@code -Djvs.tcpdumpCorpus=DIR}, else the first directory up from the
     *         working directory (core/ under Maven) that holds it or whose parent holds it.
     */
    public static Path directory()
    {
        final String property = System.getProperty("jvs.tcpdumpCorpus");
        if (property != null && Files.isDirectory(Path.of(property)))
        {
            return Path.of(property);
        }
        if (property == null)
        {
            for (Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath(); dir != null;
                dir = dir.getParent())
            {
                for (final Path candidate : List.of(dir.resolve(CORPUS), dir.resolve("..").resolve(CORPUS)))
                {
                    if (Files.isDirectory(candidate))
                    {
                        return candidate.normalize();
                    }
                }
            }
        }
        return fail("the tcpdump test corpus is missing: no %s or ../%s above %s (CI has it; set "
            + "-Djvs.tcpdumpCorpus=DIR to point elsewhere)", CORPUS, CORPUS, System.getProperty("user.dir"));
    }

    /**
     * @return the corpus's files, sorted by name.
     */
    public static List<Path> files()
    {
        try (Stream<Path> list = Files.list(directory()))
        {
            return list.filter(Files::isRegularFile).sorted().toList();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}

package io.jvs.forwarder.port;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What this process's descriptors are, from /proc/self/fd: for tests that check a close gave back the sockets it
 * should. By what a descriptor is (a socket's inode), not by its number or by a count: other tests' threads and
 * cleaners open and close descriptors meanwhile, and reuse numbers.
 */
public final class OpenDescriptors
{
    private OpenDescriptors()
    {
    }

    /** @return what the descriptor is, e.g. "socket:[123]" (an inode no other open socket has). */
    public static String target(final int fd) throws IOException
    {
        return Files.readSymbolicLink(Path.of("/proc/self/fd", Integer.toString(fd))).toString();
    }

    /** @return what every open descriptor is, as {@link #target}. */
    public static Set<String> targets() throws IOException
    {
        final Set<String> targets = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd")))
        {
            for (final Path fd : (Iterable<Path>)fds::iterator)
            {
                try
                {
                    targets.add(Files.readSymbolicLink(fd).toString());
                }
                catch (final IOException closedMeanwhile)
                {
                    // closed since the listing
                }
            }
        }
        return targets;
    }
}

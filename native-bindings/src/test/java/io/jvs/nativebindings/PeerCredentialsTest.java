package io.jvs.nativebindings;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The peer of a Unix socket as the kernel reports it: this JVM's own pid, user and groups for a connection it
 * makes itself, and a stranger's user, group and supplementary groups for a connection made by a process started
 * under other ids (setpriv), which is what the control socket's check decides on.
 */
class PeerCredentialsTest
{
    private static final int NOBODY = 65534;

    @TempDir
    Path directory;

    @Test
    void shouldReportThisProcessForItsOwnConnection() throws IOException
    {
        assertThat(ChannelDescriptors.available()).as("sun.nio.ch exported to the tests (jvm.flags)").isTrue();
        final Path path = directory.resolve("peer.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX))
        {
            server.bind(UnixDomainSocketAddress.of(path));
            try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(path));
                 SocketChannel accepted = server.accept())
            {
                final PeerCredentials peer = PeerCredentials.of(Syscalls.create(),
                    ChannelDescriptors.of(accepted).orElseThrow());
                assertThat(peer.pid()).isEqualTo((int)ProcessHandle.current().pid());
                assertThat(peer.uid()).isEqualTo(ids("Uid:")[1]);
                assertThat(peer.gid()).isEqualTo(ids("Gid:")[1]);
                assertThat(peer.groups()).containsExactlyInAnyOrder(ids("Groups:"));
                assertThat(client.isConnected()).isTrue();
            }
        }
    }

    @Test
    void shouldReportAnotherUsersIdsAndSupplementaryGroups() throws Exception
    {
        final Path path = directory.resolve("peer.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX))
        {
            server.bind(UnixDomainSocketAddress.of(path));
            Files.setPosixFilePermissions(directory, java.nio.file.attribute.PosixFilePermissions.fromString(
                "rwxrwxrwx"));
            Files.setPosixFilePermissions(path, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
            final Process stranger = new ProcessBuilder("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY,
                "--groups=100,4242", "socat", "-u", "OPEN:/dev/null", "UNIX-CONNECT:" + path).redirectErrorStream(true)
                .start();
            try (SocketChannel accepted = server.accept())
            {
                final PeerCredentials peer = PeerCredentials.of(Syscalls.create(),
                    ChannelDescriptors.of(accepted).orElseThrow());
                assertThat(peer.uid()).isEqualTo(NOBODY);
                assertThat(peer.gid()).isEqualTo(NOBODY);
                assertThat(peer.groups()).contains(100, 4242);
                assertThat(peer.inGroup(4242)).isTrue();
                assertThat(peer.inGroup(NOBODY)).as("the effective group counts").isTrue();
                assertThat(peer.inGroup(0)).isFalse();
            }
            finally
            {
                if (!stranger.waitFor(10, TimeUnit.SECONDS))
                {
                    stranger.destroyForcibly();
                }
            }
        }
    }

    @Test
    void shouldRefuseADescriptorThatIsNoSocket() throws IOException
    {
        final Syscalls syscalls = Syscalls.create();
        final int fd = syscalls.open("/dev/null", 0);
        try
        {
            assertThatThrownBy(() -> PeerCredentials.of(syscalls, fd)).isInstanceOf(NativeCallException.class)
                .hasMessageContaining("SO_PEERCRED");
        }
        finally
        {
            syscalls.close(fd);
        }
    }

    private static int[] ids(final String field) throws IOException
    {
        final String line = Files.readAllLines(Path.of("/proc/self/status")).stream()
            .filter(candidate -> candidate.startsWith(field)).findFirst().orElseThrow();
        final String values = line.substring(field.length()).trim();
        return values.isEmpty() ? new int[0] : Arrays.stream(values.split("\\s+")).mapToInt(Integer::parseInt)
            .toArray();
    }
}

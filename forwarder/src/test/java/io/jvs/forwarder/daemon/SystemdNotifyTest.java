package io.jvs.forwarder.daemon;

import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * sd_notify's wire format as systemd reads it: one AF_UNIX datagram holding exactly the newline-separated
 * assignments, to a socket path or to a name in the abstract namespace ({@code @name}); nothing is sent, and
 * false returned, without a target, to a socket no one has bound, or for a name too long for an address.
 * The test binds its own datagram socket, as systemd does.
 */
class SystemdNotifyTest
{
    private static final int AF_UNIX = 1;
    private static final int SOCKADDR_UN_SIZE = 110;

    @TempDir
    Path dir;

    @Test
    void shouldSendTheStateAsOneDatagramToASocketPath()
    {
        final Path path = dir.resolve("notify");
        try (Receiver receiver = new Receiver(path.toString().getBytes(StandardCharsets.UTF_8)))
        {
            assertThat(SystemdNotify.notify(path.toString(), "READY=1\nSTATUS=ready: 2 workers")).isTrue();
            assertThat(receiver.receive()).isEqualTo("READY=1\nSTATUS=ready: 2 workers");
            assertThat(SystemdNotify.notify(path.toString(), "STOPPING=1")).isTrue();
            assertThat(receiver.receive()).isEqualTo("STOPPING=1");
            assertThat(receiver.receive()).as("no third datagram").isNull();
        }
    }

    @Test
    void shouldSendToAnAbstractNameWhenTheTargetStartsWithAnAt()
    {
        final String name = "jvs-notify-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        final byte[] address = ("\0" + name).getBytes(StandardCharsets.UTF_8);
        try (Receiver receiver = new Receiver(address))
        {
            assertThat(SystemdNotify.notify("@" + name, "RELOADING=1")).isTrue();
            assertThat(receiver.receive()).isEqualTo("RELOADING=1");
        }
    }

    @Test
    void shouldSendNothingWithoutATarget()
    {
        assertThat(SystemdNotify.notify(null, "READY=1")).isFalse();
        assertThat(SystemdNotify.notify("", "READY=1")).isFalse();
    }

    @Test
    void shouldReportFailureForASocketNoOneHasBound()
    {
        assertThat(SystemdNotify.notify(dir.resolve("nobody").toString(), "READY=1")).isFalse();
        assertThat(SystemdNotify.notify("@jvs-notify-test-nobody-" + System.nanoTime(), "READY=1")).isFalse();
    }

    @Test
    void shouldRefuseANameTooLongForAUnixAddress()
    {
        final Path path = dir.resolve("n".repeat(120));
        assertThat(SystemdNotify.notify(path.toString(), "READY=1")).isFalse();
    }

    /** An AF_UNIX datagram socket bound to an address (a path, or a leading NUL and an abstract name). */
    private static final class Receiver implements AutoCloseable
    {
        private final Syscalls syscalls = Syscalls.create();
        private final Arena arena = Arena.ofConfined();
        private final MemorySegment buffer = arena.allocate(4096);
        private final int fd;

        Receiver(final byte[] address)
        {
            fd = syscalls.socket(AF_UNIX, Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC, 0);
            assertThat(fd).as("AF_UNIX datagram socket").isPositive();
            final MemorySegment sockaddr = arena.allocate(SOCKADDR_UN_SIZE);
            sockaddr.set(JAVA_SHORT, 0, (short)AF_UNIX);
            MemorySegment.copy(address, 0, sockaddr, JAVA_BYTE, 2, address.length);
            // An abstract name is exactly as long as the address length says; a path may end with its NUL.
            final int length = 2 + address.length + (address[0] == 0 ? 0 : 1);
            assertThat(syscalls.bind(fd, sockaddr.address(), length)).as("bind").isZero();
        }

        /** @return the next datagram, already queued (sd_notify's send is synchronous), or null. */
        String receive()
        {
            final long length = syscalls.recvfrom(fd, buffer.address(), buffer.byteSize(), Sockets.MSG_DONTWAIT, 0, 0);
            return length < 0 ? null :
                new String(buffer.asSlice(0, length).toArray(JAVA_BYTE), StandardCharsets.UTF_8);
        }

        @Override
        public void close()
        {
            syscalls.close(fd);
            arena.close();
        }
    }
}

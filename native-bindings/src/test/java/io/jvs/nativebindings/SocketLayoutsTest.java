package io.jvs.nativebindings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

import org.junit.jupiter.api.Test;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The socket-level structures (glibc's, which are the kernel's on x86-64) and constants.
 */
class SocketLayoutsTest
{
    @Test
    void shouldLayOutPollFd()
    {
        assertThat(PollFd.SIZE).isEqualTo(8);
        assertThat(new int[] {PollFd.FD_OFFSET, PollFd.EVENTS_OFFSET, PollFd.REVENTS_OFFSET}).containsExactly(0, 4, 6);
        assertThat(new short[] {PollFd.POLLIN, PollFd.POLLPRI, PollFd.POLLOUT, PollFd.POLLERR, PollFd.POLLHUP,
            PollFd.POLLNVAL}).containsExactly(1, 2, 4, 8, 16, 32);
    }

    @Test
    void shouldLayOutSockaddrInInNetworkOrder()
    {
        assertThat(SockaddrIn.SIZE).isEqualTo(16);
        assertThat(new int[] {SockaddrIn.FAMILY_OFFSET, SockaddrIn.PORT_OFFSET, SockaddrIn.ADDR_OFFSET})
            .containsExactly(0, 2, 4);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment address = arena.allocate(SockaddrIn.LAYOUT);
            final VarHandle port = SockaddrIn.LAYOUT.varHandle(groupElement("sin_port"));
            port.set(address, 0L, (short)0x1234);
            assertThat(address.get(ValueLayout.JAVA_BYTE, SockaddrIn.PORT_OFFSET)).isEqualTo((byte)0x12);
        }
    }

    @Test
    void shouldLayOutIfreqWithItsTwentyFourByteUnion()
    {
        assertThat(Ifreq.SIZE).isEqualTo(40);
        assertThat(new int[] {Ifreq.NAME_OFFSET, Ifreq.IFINDEX_OFFSET, Ifreq.FLAGS_OFFSET, Ifreq.MTU_OFFSET})
            .containsExactly(0, 16, 16, 16);
    }

    @Test
    void shouldConvertToNetworkByteOrder()
    {
        assertThat(Sockets.htons(0x0003)).isEqualTo(0x0300);
        assertThat(Sockets.htons(0x86DD)).isEqualTo(0xDD86);
        assertThat(Sockets.htons(0x1_0001)).isEqualTo(0x0100);
    }

    @Test
    void shouldUseTheKernelsConstants()
    {
        assertThat(new int[] {Sockets.AF_INET, Sockets.AF_INET6, Sockets.SOCK_STREAM, Sockets.SOCK_DGRAM,
            Sockets.SOCK_RAW, Sockets.SOL_SOCKET, Sockets.MSG_DONTWAIT}).containsExactly(2, 10, 1, 2, 3, 1, 0x40);
        assertThat(new int[] {Mmap.PROT_READ, Mmap.PROT_WRITE, Mmap.MAP_SHARED, Mmap.MAP_PRIVATE, Mmap.MAP_ANONYMOUS,
            Mmap.MAP_POPULATE}).containsExactly(1, 2, 1, 2, 0x20, 0x8000);
    }
}

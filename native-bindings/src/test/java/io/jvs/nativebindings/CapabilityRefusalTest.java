package io.jvs.nativebindings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.testing.TestCapabilities;
import io.jvs.nativebindings.xdp.AfXdp;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the kernel and jvs say to a thread without the privileges a port needs: the real EPERM, through both
 * bindings, and an exception message that names the missing capability. Needs a process that has them (root
 * in CI); only the test's own thread gives them up.
 */
class CapabilityRefusalTest
{
    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldNameCapNetRawWhenARawSocketIsRefused(final String binding)
    {
        TestCapabilities.callWithout(new int[] {TestCapabilities.CAP_NET_RAW}, () ->
        {
            final Syscalls syscalls = Syscalls.create(binding);
            final int packet = syscalls.socket(AfPacket.AF_PACKET, Sockets.SOCK_RAW, Sockets.htons(AfPacket.ETH_P_ALL));
            assertThat(packet).isEqualTo(-Errno.EPERM);
            assertThat(syscalls.socket(AfXdp.AF_XDP, Sockets.SOCK_RAW, 0)).isEqualTo(-Errno.EPERM);
            assertThatThrownBy(() -> Syscalls.check("socket", packet, "AF_PACKET for eth0"))
                .isInstanceOf(NativeCallException.class)
                .hasMessage("socket failed: EPERM (operation not permitted), AF_PACKET for eth0: " +
                    "opening AF_PACKET and AF_XDP sockets needs CAP_NET_RAW");

            final int udp = syscalls.socket(Sockets.AF_INET, Sockets.SOCK_DGRAM, 0);
            assertThat(udp).as("sockets that need no privilege still open").isPositive();
            syscalls.close(udp);
            return null;
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldNameCapBpfWhenBpfIsRefused(final String binding)
    {
        TestCapabilities.callWithout(new int[] {TestCapabilities.CAP_BPF, TestCapabilities.CAP_SYS_ADMIN}, () ->
        {
            final Syscalls syscalls = Syscalls.create(binding);
            try (Arena arena = Arena.ofConfined())
            {
                // BPF_MAP_CREATE of a 1-entry array (union bpf_attr: type, key size, value size, entries).
                final MemorySegment attribute = arena.allocate(144, 8);
                attribute.set(JAVA_INT, 0, 2);
                attribute.set(JAVA_INT, 4, 4);
                attribute.set(JAVA_INT, 8, 8);
                attribute.set(JAVA_INT, 12, 1);
                final long map = syscalls.bpf(0, attribute.address(), 144);
                assertThat(map).isEqualTo(-Errno.EPERM);
                assertThatThrownBy(() -> Syscalls.check("bpf BPF_MAP_CREATE", map, "XSKMAP"))
                    .hasMessageStartingWith("bpf BPF_MAP_CREATE failed: EPERM (operation not permitted), XSKMAP: ")
                    .hasMessageContaining("CAP_BPF");
            }
            return null;
        });
    }
}

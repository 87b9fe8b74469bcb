package io.jvs.nativebindings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The calls that need no privilege, through both bindings: results and errno come back the same way.
 */
class SyscallsSmokeTest
{
    private static final int AF_INET = 2;
    private static final int SOCK_DGRAM = 2;
    private static final int EBADF = 9;
    private static final int ENODEV = 19;

    @ParameterizedTest
    @ValueSource(strings = {"panama", "jnr"})
    void shouldReturnResultsAndNegativeErrnos(final String binding)
    {
        final Syscalls syscalls = Syscalls.create(binding);
        assertThat(syscalls.name()).isEqualTo(binding);

        final int fd = syscalls.socket(AF_INET, SOCK_DGRAM, 0);
        assertThat(fd).isPositive();
        assertThat(syscalls.close(fd)).isZero();
        assertThat(syscalls.close(fd)).isEqualTo(-EBADF);

        assertThat(syscalls.ifNameToIndex("lo")).isPositive();
        assertThat(syscalls.ifNameToIndex("no-such-if0")).isEqualTo(-ENODEV);

        final long address = syscalls.mmap(0, 8192, 0x3, 0x22, -1, 0);
        assertThat(address).isPositive();
        final MemorySegment mapped = MemorySegment.ofAddress(address).reinterpret(8192);
        mapped.set(ValueLayout.JAVA_LONG, 8184, 42L);
        assertThat(mapped.get(ValueLayout.JAVA_LONG, 8184)).isEqualTo(42L);
        assertThat(syscalls.munmap(address, 8192)).isZero();

        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment value = arena.allocate(4);
            final MemorySegment length = arena.allocate(4);
            length.set(ValueLayout.JAVA_INT, 0, 4);
            final int udp = syscalls.socket(AF_INET, SOCK_DGRAM, 0);
            // SOL_SOCKET / SO_TYPE reads back the socket type.
            assertThat(syscalls.getsockopt(udp, 1, 3, value.address(), length.address())).isZero();
            assertThat(value.get(ValueLayout.JAVA_INT, 0)).isEqualTo(SOCK_DGRAM);
            syscalls.close(udp);
        }
    }
}

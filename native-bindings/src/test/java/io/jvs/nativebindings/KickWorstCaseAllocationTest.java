package io.jvs.nativebindings;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Test;

import static io.jvs.nativebindings.Errno.EAGAIN;
import static io.jvs.nativebindings.Errno.EBADF;
import static io.jvs.nativebindings.Errno.EDESTADDRREQ;
import static io.jvs.nativebindings.Errno.EFAULT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The data-path kicks ({@link Syscalls#kickTransmit}, {@link Syscalls#kickReceive}) and the idle worker's
 * {@link Syscalls#pollIdle} allocate nothing even when the
 * JIT does not inline Panama's errno-capture check, which a capturing downcall then pays for with a segment per
 * call. Runs in its own surefire execution whose JVM forbids that inlining (native-bindings/pom.xml); the
 * capturing {@code sendto} is measured beside the kicks to show the worst case is really in force.
 */
class KickWorstCaseAllocationTest
{
    private static final int CALLS = 50_000;

    @Test
    void shouldKickWithoutAllocatingWhereACapturingCallAllocates()
    {
        // In the kick-worst-case-allocation execution's JVM; run anywhere else (an IDE, -Dtest) it still checks
        // the kicks, only not that the worst case is in force.
        final boolean worstCase = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
            .anyMatch(argument -> argument.contains("SharedUtils::checkCaptureSegment"));
        final Syscalls syscalls = Syscalls.create("panama");
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final int fd = syscalls.socket(Sockets.AF_INET, Sockets.SOCK_DGRAM | Sockets.SOCK_CLOEXEC, 0);
        assertThat(fd).isGreaterThan(2);
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment pollfd = arena.allocate(PollFd.LAYOUT);
            assertThat(syscalls.kickTransmit(fd)).isEqualTo(-EDESTADDRREQ);
            assertThat(syscalls.kickReceive(fd)).isEqualTo(-EAGAIN);
            assertThat(syscalls.kickTransmit(-1)).isEqualTo(-EBADF);
            // Nothing to read on an unbound UDP socket: the idle poll times out at once.
            pollfd.set(JAVA_INT, PollFd.FD_OFFSET, fd);
            pollfd.set(JAVA_SHORT, PollFd.EVENTS_OFFSET, PollFd.POLLIN);
            assertThat(syscalls.pollIdle(pollfd.address(), 1, 0)).isZero();
            assertThat(syscalls.pollIdle(0, 1, 0)).isEqualTo(-EFAULT);

            long fewestKickBytes = Long.MAX_VALUE;
            long fewestCaptureBytes = Long.MAX_VALUE;
            for (int window = 0; window < 6; window++)
            {
                final long start = threads.getCurrentThreadAllocatedBytes();
                long sum = kicks(syscalls, fd, pollfd.address());
                final long kicked = threads.getCurrentThreadAllocatedBytes();
                sum += capturingSends(syscalls, fd);
                final long captured = threads.getCurrentThreadAllocatedBytes();
                assertThat(sum).isEqualTo(-(long)CALLS * (EDESTADDRREQ + EAGAIN + EDESTADDRREQ));
                fewestKickBytes = Math.min(fewestKickBytes, kicked - start);
                fewestCaptureBytes = Math.min(fewestCaptureBytes, captured - kicked);
            }

            if (worstCase)
            {
                assertThat(fewestCaptureBytes).as("bytes %d capturing sendto calls allocate here", CALLS)
                    .isGreaterThanOrEqualTo(16L * CALLS);
            }
            // One compilation event in a window can allocate a little; a segment per kick would be 1.6 MB.
            assertThat(fewestKickBytes).as("bytes %d kicks and idle polls allocate", 3 * CALLS).isLessThan(16 * 1024);
        }
        finally
        {
            syscalls.close(fd);
        }
    }

    private static long kicks(final Syscalls syscalls, final int fd, final long pollfd)
    {
        long sum = 0;
        for (int i = 0; i < CALLS; i++)
        {
            sum += syscalls.kickTransmit(fd);
            sum += syscalls.kickReceive(fd);
            sum += syscalls.pollIdle(pollfd, 1, 0);
        }
        return sum;
    }

    private static long capturingSends(final Syscalls syscalls, final int fd)
    {
        long sum = 0;
        for (int i = 0; i < CALLS; i++)
        {
            sum += syscalls.sendto(fd, 0, 0, Sockets.MSG_DONTWAIT, 0, 0);
        }
        return sum;
    }
}

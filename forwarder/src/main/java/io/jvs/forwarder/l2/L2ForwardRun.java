package io.jvs.forwarder.l2;

import io.jvs.forwarder.port.PortCounters;

import org.agrona.concurrent.IdleStrategy;

import java.lang.management.ManagementFactory;
import java.util.function.BooleanSupplier;

/**
 * Runs a {@link MacRewriteLoop} on the calling thread, busy polling, for a fixed time or until stopped, and
 * measures what the wire benchmark reports: frames forwarded, the rate, and the thread's CPU time per frame
 * (user and system: the copy-mode AF_XDP transmit and the AF_PACKET transmit run inside our system calls, so
 * system time is part of the forwarder's cost). A busy-polling thread burns its core whether frames come or
 * not, so CPU time per frame means something only when the loop is saturated; the wall time of the polls that
 * found frames, per frame, is what a frame costs at any load (the notes' "busy ns per packet").
 */
public final class L2ForwardRun
{
    private static final com.sun.management.ThreadMXBean THREADS =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

    /**
     * What one measured window saw.
     *
     * @param received          frames received.
     * @param forwarded         frames handed to the transmit port.
     * @param elapsedNs         wall time of the window.
     * @param cpuNs             the polling thread's CPU time (user + system) in the window.
     * @param idlePolls         polls that found no frame.
     * @param busyPolls         polls that found at least one frame.
     * @param busyNs            wall time spent in the polls that found frames.
     * @param allocatedBytes    heap bytes the polling thread allocated in the window.
     */
    public record Window(long received, long forwarded, long elapsedNs, long cpuNs, long idlePolls, long busyPolls,
        long busyNs, long allocatedBytes)
    {
        public double forwardedMpps()
        {
            return elapsedNs == 0 ? 0 : forwarded * 1e3 / elapsedNs;
        }

        public double cpuNsPerFrame()
        {
            return forwarded == 0 ? Double.NaN : (double)cpuNs / forwarded;
        }

        public double busyNsPerFrame()
        {
            return received == 0 ? Double.NaN : (double)busyNs / received;
        }

        /** @return the average number of frames per poll that found some. */
        public double averageBurst()
        {
            return busyPolls == 0 ? 0 : (double)received / busyPolls;
        }
    }

    private final MacRewriteLoop loop;
    private final IdleStrategy idleStrategy;

    /**
     * @param idleStrategy what the thread does after a poll that found nothing: spin (the lowest latency, and
     *                     the whole core), or yield or back off, which leaves the core to whoever shares it; on
     *                     a veth the kernel's receive work (NAPI) may be that neighbour.
     */
    public L2ForwardRun(final MacRewriteLoop loop, final IdleStrategy idleStrategy)
    {
        this.loop = loop;
        this.idleStrategy = idleStrategy;
    }

    /**
     * Polls until {@code durationNs} passed or {@code stop} says so (checked every 1024 polls).
     *
     * @return the window's figures.
     */
    public Window run(final long durationNs, final BooleanSupplier stop)
    {
        final long receivedBefore = loop.received();
        final long forwardedBefore = loop.forwarded();
        final long allocatedBefore = THREADS.getCurrentThreadAllocatedBytes();
        final long cpuBefore = THREADS.getCurrentThreadCpuTime();
        final long start = System.nanoTime();
        final long end = start + durationNs;
        long idlePolls = 0;
        long busyPolls = 0;
        long busyNs = 0;
        long now = start;
        int sinceCheck = 0;
        while (true)
        {
            final long pollStart = now;
            final int frames = loop.poll(now);
            idleStrategy.idle(frames);
            now = System.nanoTime();
            if (frames == 0)
            {
                idlePolls++;
            }
            else
            {
                busyPolls++;
                busyNs += now - pollStart;
            }
            if (now - end >= 0)
            {
                break;
            }
            if (++sinceCheck == 1024)
            {
                sinceCheck = 0;
                if (stop.getAsBoolean())
                {
                    break;
                }
            }
        }
        final long cpuNs = THREADS.getCurrentThreadCpuTime() - cpuBefore;
        final long allocated = THREADS.getCurrentThreadAllocatedBytes() - allocatedBefore;
        return new Window(loop.received() - receivedBefore, loop.forwarded() - forwardedBefore, now - start, cpuNs,
            idlePolls, busyPolls, busyNs, allocated);
    }

    /**
     * @return one line of a port's counters after refreshing the kernel's part.
     */
    public static String describe(final String role, final PortCounters counters)
    {
        counters.refresh();
        return role + ": " + counters;
    }
}

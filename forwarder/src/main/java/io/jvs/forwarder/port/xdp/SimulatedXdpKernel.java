package io.jvs.forwarder.port.xdp;

import io.jvs.forwarder.port.memory.FrameSource;
import io.jvs.nativebindings.Syscalls;

/**
 * AF_XDP ports with no device behind them: real {@link AfXdpPort}s over a real {@link Umem}, whose sockets'
 * rings are anonymous memory ({@link XdpSocket#simulated}), and the kernel's side of those rings played here as a
 * copy-mode driver plays it. {@link #deliver} takes chunks from a port's fill ring and returns them on its RX ring
 * holding frames a {@link FrameSource} writes, after the kernel's 256 bytes of headroom (XDP_PACKET_HEADROOM);
 * {@link #complete} takes every port's TX descriptors to its completion ring, and the frames go nowhere.
 * <p>
 * What it is for: the daemon's warm-up runs its worker, ports and pipeline over these before it opens the real
 * sockets, so that the JIT compiles the very classes live traffic then runs, and the first real frame meets
 * compiled code instead of a deoptimisation (with another port class there, the worker's calls into its ports
 * are compiled for that class and trap on the first AfXdpPort).
 * <p>
 * Like the ports' own worker, one thread uses it. The ports share one UMEM, as a worker's ports do
 * ({@link AfXdpDevices}).
 */
public final class SimulatedXdpKernel implements AutoCloseable
{
    /** XDP_PACKET_HEADROOM: where a copy-mode kernel writes a received frame in its chunk. */
    static final int KERNEL_HEADROOM = 256;

    private final Umem umem;
    private final XdpSocket[] sockets;
    private final AfXdpPort[] ports;
    private final XdpRing[] kernelFill;
    private final XdpRing[] kernelRx;
    private final XdpRing[] kernelTx;
    private final XdpRing[] kernelCompletion;
    private long delivered;
    private long completed;
    private long kicked;
    private boolean closed;

    private SimulatedXdpKernel(final Umem umem, final int count)
    {
        this.umem = umem;
        this.sockets = new XdpSocket[count];
        this.ports = new AfXdpPort[count];
        this.kernelFill = new XdpRing[count];
        this.kernelRx = new XdpRing[count];
        this.kernelTx = new XdpRing[count];
        this.kernelCompletion = new XdpRing[count];
    }

    /**
     * Opens one simulated port per entry of {@code portIndexes}, with the UMEM geometry, rings, batch and busy
     * polling {@code settings} give (as {@link AfXdpDevices#open} uses the first device's).
     *
     * @param syscalls    the bindings the ports use, as a worker's ports use its own.
     * @param portIndexes the index each port carries.
     */
    public static SimulatedXdpKernel open(final Syscalls syscalls, final AfXdpSettings settings,
        final int[] portIndexes)
    {
        final int chunks = Math.max(settings.chunkCount(), (portIndexes.length + 2) * settings.fillRingSize());
        final SimulatedXdpKernel kernel = new SimulatedXdpKernel(Umem.map(syscalls, chunks, settings.chunkSize()),
            portIndexes.length);
        try
        {
            for (int p = 0; p < portIndexes.length; p++)
            {
                final XdpSocket socket = XdpSocket.simulated(syscalls, "simulated" + portIndexes[p], settings);
                kernel.sockets[p] = socket;
                kernel.kernelFill[p] = socket.fill().otherSide();
                kernel.kernelRx[p] = socket.rx().otherSide();
                kernel.kernelTx[p] = socket.tx().otherSide();
                kernel.kernelCompletion[p] = socket.completion().otherSide();
                kernel.ports[p] = new AfXdpPort(portIndexes[p], syscalls, kernel.umem, socket, true,
                    settings.batchSize(), settings.busyPollBudget() > 0);
            }
            return kernel;
        }
        catch (final RuntimeException ex)
        {
            kernel.close();
            throw ex;
        }
    }

    /** @return the {@code p}th port opened (in the order of {@link #open}'s indexes). */
    public AfXdpPort port(final int p)
    {
        return ports[p];
    }

    /** @return the {@code p}th port's socket (for tests). */
    XdpSocket socket(final int p)
    {
        return sockets[p];
    }

    /**
     * Receives up to {@code frames} frames on the {@code p}th port, as many as its fill ring has chunks for and its
     * RX ring room, each written by {@code source} (which may stop early by returning 0).
     *
     * @return how many were put on the RX ring.
     */
    public int deliver(final int p, final int frames, final FrameSource source)
    {
        final XdpRing fill = kernelFill[p];
        final XdpRing rx = kernelRx[p];
        final int count = rx.reserve(fill.peek(frames));
        final int firstChunk = fill.consumerIndex();
        final int firstSlot = rx.producerIndex();
        final int capacity = umem.chunkSize() - KERNEL_HEADROOM;
        int written = 0;
        while (written < count)
        {
            final long offset = fill.address(firstChunk + written) + KERNEL_HEADROOM;
            final int length = source.next(umem.addressOf(offset), capacity);
            if (length <= 0)
            {
                break;
            }
            rx.putDescriptor(firstSlot + written, offset, length);
            written++;
        }
        if (written > 0)
        {
            fill.release(written);
            rx.submit(written);
            delivered += written;
        }
        return written;
    }

    /**
     * Sends what every port put on its TX ring: nowhere, with the chunks back on its completion ring; and takes the
     * empty datagrams its kicks sent.
     */
    public void complete()
    {
        for (int p = 0; p < ports.length; p++)
        {
            kicked += sockets[p].kicks().take();
            final XdpRing tx = kernelTx[p];
            final XdpRing completion = kernelCompletion[p];
            final int count = completion.reserve(tx.peek(tx.size()));
            if (count == 0)
            {
                continue;
            }
            final int first = tx.consumerIndex();
            final int slot = completion.producerIndex();
            for (int i = 0; i < count; i++)
            {
                completion.putAddress(slot + i, tx.address(first + i));
            }
            tx.release(count);
            completion.submit(count);
            completed += count;
        }
    }

    /** @return frames put on RX rings so far. */
    public long delivered()
    {
        return delivered;
    }

    /** @return the ports' transmit kicks so far. */
    public long kicked()
    {
        return kicked;
    }

    /** @return frames taken off TX rings so far. */
    public long completed()
    {
        return completed;
    }

    /** Closes the ports and their sockets, then unmaps the UMEM. Safe to call twice. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (int p = 0; p < sockets.length; p++)
        {
            if (ports[p] != null)
            {
                ports[p].close();
            }
            else if (sockets[p] != null)
            {
                sockets[p].close();
            }
        }
        umem.close();
    }
}

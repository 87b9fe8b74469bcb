package io.jvs.forwarder.port.packet;

import io.jvs.forwarder.port.memory.FrameSource;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.packet.Tpacket2Hdr;
import io.jvs.nativebindings.packet.Tpacket3Hdr;
import io.jvs.nativebindings.packet.TpacketBlockDesc;
import org.agrona.UnsafeApi;

/**
 * AF_PACKET ports with no device behind them: real {@link AfPacketPort}s whose rings are anonymous memory
 * ({@link AfPacketPort#simulated}), and the kernel's side of those rings played here. {@link #deliver} appends frames
 * a {@link FrameSource} writes to the receive block being filled, laid out as the kernel lays out TPACKET_V3 (each
 * frame's header, then the frame at TPACKET_ALIGN(header and address) plus PACKET_RESERVE), and retires a block that
 * fills; {@link #expire} is the block timer, which retires one that did not; {@link #complete} sends what the
 * transmit rings hold (nowhere: each slot back to AVAILABLE) and takes the kicks' datagrams.
 * <p>
 * What it is for: the daemon's warm-up runs its worker, ports and pipeline over these before it opens the real
 * sockets, so that the JIT compiles the classes live traffic then runs (see {@code SimulatedXdpKernel}). One thread.
 */
public final class SimulatedPacketKernel implements AutoCloseable
{
    /** The least room a frame is written into: a block with less is full. */
    private static final int MIN_FRAME_ROOM = 128;

    private final AfPacketSettings settings;
    private final AfPacketPort[] ports;
    private final int[] receiveBlock;
    /** Per port: the block being filled (0: none), where its next frame goes, its frames, its last frame's header. */
    private final long[] filling;
    private final int[] fillOffset;
    private final int[] fillCount;
    private final long[] lastHeader;
    private final int[] transmitSlot;
    /** Where the kernel puts a frame from its header: TPACKET_ALIGN(TPACKET3_HDRLEN + 16) + reserve - 14. */
    private final int macOffset;
    private long delivered;
    private long completed;
    private boolean closed;

    private SimulatedPacketKernel(final AfPacketSettings settings, final int count)
    {
        this.settings = settings;
        this.ports = new AfPacketPort[count];
        this.receiveBlock = new int[count];
        this.filling = new long[count];
        this.fillOffset = new int[count];
        this.fillCount = new int[count];
        this.lastHeader = new long[count];
        this.transmitSlot = new int[count];
        this.macOffset = AfPacket.tpacketAlign(Tpacket3Hdr.HDRLEN + 16) + settings.headroom() - 14;
    }

    /**
     * Opens one simulated port per entry of {@code portIndexes}, with the rings {@code settings} give.
     *
     * @param syscalls    the bindings the ports use.
     * @param portIndexes the index each port carries.
     */
    public static SimulatedPacketKernel open(final Syscalls syscalls, final AfPacketSettings settings,
        final int[] portIndexes)
    {
        final SimulatedPacketKernel kernel = new SimulatedPacketKernel(settings, portIndexes.length);
        try
        {
            for (int p = 0; p < portIndexes.length; p++)
            {
                kernel.ports[p] = AfPacketPort.simulated(syscalls, portIndexes[p], settings);
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
    public AfPacketPort port(final int p)
    {
        return ports[p];
    }

    /**
     * Receives up to {@code frames} frames on the {@code p}th port, each written by {@code source} (which may stop
     * early by returning 0), appended to the block the kernel is filling: a block that fills is retired and the next
     * one opened, as the kernel does; none is opened while the next is still the port's.
     *
     * @return how many were put in blocks.
     */
    public int deliver(final int p, final int frames, final FrameSource source)
    {
        int written = 0;
        while (written < frames)
        {
            if (filling[p] == 0 && !openBlock(p))
            {
                break;
            }
            final long block = filling[p];
            final int capacity = settings.rxBlockSize() - fillOffset[p] - macOffset;
            if (capacity < MIN_FRAME_ROOM)
            {
                retire(p, 0);
                continue;
            }
            final long header = block + fillOffset[p];
            final int length = source.next(header + macOffset, capacity);
            if (length <= 0)
            {
                break;
            }
            UnsafeApi.putInt(header + Tpacket3Hdr.NEXT_OFFSET_OFFSET, 0);
            UnsafeApi.putInt(header + Tpacket3Hdr.LEN_OFFSET, length);
            UnsafeApi.putInt(header + Tpacket3Hdr.SNAPLEN_OFFSET, length);
            UnsafeApi.putInt(header + Tpacket3Hdr.STATUS_OFFSET, AfPacket.TP_STATUS_USER);
            UnsafeApi.putShort(header + Tpacket3Hdr.MAC_OFFSET, (short)macOffset);
            UnsafeApi.putShort(header + Tpacket3Hdr.NET_OFFSET, (short)(macOffset + 14));
            if (lastHeader[p] != 0)
            {
                UnsafeApi.putInt(lastHeader[p] + Tpacket3Hdr.NEXT_OFFSET_OFFSET, (int)(header - lastHeader[p]));
            }
            lastHeader[p] = header;
            fillOffset[p] = AfPacket.tpacketAlign(fillOffset[p] + macOffset + length);
            fillCount[p]++;
            written++;
        }
        delivered += written;
        return written;
    }

    /**
     * The block timer (retire_blk_tov): retires the block being filled, if it holds any frame, with
     * TP_STATUS_BLK_TMO, as the kernel retires a block that did not fill in time.
     */
    public void expire(final int p)
    {
        if (filling[p] != 0 && fillCount[p] > 0)
        {
            retire(p, AfPacket.TP_STATUS_BLK_TMO);
        }
    }

    private boolean openBlock(final int p)
    {
        final long block = ports[p].receiveSocket().ring() + (long)receiveBlock[p] * settings.rxBlockSize();
        if (UnsafeApi.getIntAcquire(null, block + TpacketBlockDesc.BLOCK_STATUS_OFFSET) != AfPacket.TP_STATUS_KERNEL)
        {
            return false;
        }
        filling[p] = block;
        fillOffset[p] = TpacketBlockDesc.SIZE;
        fillCount[p] = 0;
        lastHeader[p] = 0;
        return true;
    }

    private void retire(final int p, final int timedOut)
    {
        final long block = filling[p];
        UnsafeApi.putInt(block + TpacketBlockDesc.VERSION_OFFSET, AfPacket.TPACKET_V3);
        UnsafeApi.putInt(block + TpacketBlockDesc.NUM_PKTS_OFFSET, fillCount[p]);
        UnsafeApi.putInt(block + TpacketBlockDesc.OFFSET_TO_FIRST_PKT_OFFSET, TpacketBlockDesc.SIZE);
        UnsafeApi.putInt(block + TpacketBlockDesc.BLK_LEN_OFFSET, fillOffset[p]);
        // The hand-over: a release store, so the frames written before it are seen by whoever acquires the status.
        UnsafeApi.putIntRelease(null, block + TpacketBlockDesc.BLOCK_STATUS_OFFSET, AfPacket.TP_STATUS_USER | timedOut);
        receiveBlock[p] = receiveBlock[p] + 1 == settings.rxBlockCount() ? 0 : receiveBlock[p] + 1;
        filling[p] = 0;
    }

    /** Sends what every port put on its transmit ring (nowhere) and takes the empty datagrams its kicks sent. */
    public void complete()
    {
        final int statusOffset = settings.txVersion() == AfPacket.TPACKET_V3 ? Tpacket3Hdr.STATUS_OFFSET :
            Tpacket2Hdr.STATUS_OFFSET;
        for (int p = 0; p < ports.length; p++)
        {
            final PacketSocket transmit = ports[p].transmitSocket();
            transmit.kicks().take();
            final long ring = transmit.ring();
            int slot = transmitSlot[p];
            while (true)
            {
                final long status = ring + (long)slot * settings.txFrameSize() + statusOffset;
                if (UnsafeApi.getIntAcquire(null, status) != AfPacket.TP_STATUS_SEND_REQUEST)
                {
                    break;
                }
                UnsafeApi.putIntRelease(null, status, AfPacket.TP_STATUS_AVAILABLE);
                slot = slot + 1 == settings.txFrameCount() ? 0 : slot + 1;
                completed++;
            }
            transmitSlot[p] = slot;
        }
    }

    /** @return frames put in receive blocks so far. */
    public long delivered()
    {
        return delivered;
    }

    /** @return frames taken off transmit rings so far. */
    public long completed()
    {
        return completed;
    }

    /** Closes the ports. Safe to call twice. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        for (final AfPacketPort port : ports)
        {
            if (port != null)
            {
                port.close();
            }
        }
    }
}

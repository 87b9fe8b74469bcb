package io.jvs.forwarder.port.packet;

import io.jvs.core.pipeline.FrameBurst;
import io.jvs.nativebindings.Mmap;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.packet.Tpacket2Hdr;
import io.jvs.nativebindings.packet.Tpacket3Hdr;

/**
 * The geometry and options of an {@link AfPacketPort}'s rings, checked when made, so a bad value fails here
 * with its name rather than as EINVAL from setsockopt.
 *
 * @param rxBlockSize       bytes of a TPACKET_V3 receive block: a multiple of the page size and of the frame size.
 * @param rxBlockCount      receive blocks. The kernel fills one at a time, so the ring is
 *                          rxBlockSize * rxBlockCount bytes of frames in flight.
 * @param rxFrameSize       the nominal frame size the kernel checks the geometry with (V3 packs frames tighter);
 *                          a multiple of 16, large enough for the headers and the headroom.
 * @param retireTimeoutMs   a block not yet full is handed over after this long: the worst delay at low rates.
 * @param headroom          PACKET_RESERVE: bytes kept free in front of each received frame, so the pipeline can
 *                          prepend an encapsulation (outer IPv6 40 + UDP 8 + GUE 8 + a VLAN tag) in place. At least
 *                          {@link #MIN_HEADROOM}.
 * @param txVersion         {@link AfPacket#TPACKET_V2} or {@link AfPacket#TPACKET_V3} for the transmit ring.
 * @param txBlockSize       bytes of a transmit block: a multiple of the page size and of the frame size.
 * @param txFrameSize       bytes of a transmit slot, its header included; a multiple of 16. A frame longer than
 *                          {@link #txFrameCapacity()} is dropped (txTooLong): raise it for jumbo frames.
 * @param txFrameCount      transmit slots; a multiple of the slots per block.
 * @param qdiscBypass       PACKET_QDISC_BYPASS on the transmit socket: faster, but taps (tcpdump) no longer see
 *                          the frames we send.
 * @param fanoutGroup       the PACKET_FANOUT group the receive socket joins, or {@link #NO_FANOUT}.
 * @param fanoutModeFlags   a PACKET_FANOUT_* mode or'ed with PACKET_FANOUT_FLAG_* flags. HASH keeps a flow on one
 *                          socket, but IPv4 fragments hash on their addresses alone; FLAG_DEFRAG has the kernel
 *                          reassemble them first (the frame then exceeds the MTU). FLAG_ROLLOVER moves frames to
 *                          another socket when one's ring is full, giving up flow affinity for fewer drops. EBPF
 *                          lets a program choose the socket: the daemon's {@code FanoutPrograms.clientDispatch},
 *                          which keeps both directions of a connection on one worker; the port is then opened with
 *                          the program ({@link AfPacketPrograms#fanout}).
 * @param receiveBurst      the most frames one receive appends, 1..{@link FrameBurst#MAX_FRAMES}.
 * @param steal             which originals the receiving port drops at its device's tcx ingress (through a BPF
 *                          link, gone with the port or the process), after the AF_PACKET socket has its copy, so
 *                          that the kernel's stack does not process them too ({@link AfPacketSteal}): none, all
 *                          (the benchmark's, on an interface dedicated to jvs), or exactly jvs's traffic (the
 *                          daemon's, over the maps given at open). Needs Linux 6.6 and CAP_BPF with CAP_NET_ADMIN.
 *                          NONE by default.
 * @param linearTransmit    the transmit socket takes a virtio_net_hdr in front of each frame (PACKET_VNET_HDR) whose
 *                          hdr_len is the whole frame, so the kernel copies the frame into the skb's own buffer.
 *                          Without it the kernel copies only the Ethernet header and hangs the rest of the ring slot
 *                          on the skb as a page fragment marked zero-copy, which any device that loops the skb
 *                          back into the stack (veth, bridges to local sockets) must then copy into a freshly
 *                          allocated page, which over veth forwarded less in the same wire benchmark run
 *                          (perf/RESULTS.md, "Fourth run"). On by default; costs 10 bytes of each slot.
 */
public record AfPacketSettings(
    int rxBlockSize, int rxBlockCount, int rxFrameSize, int retireTimeoutMs, int headroom,
    int txVersion, int txBlockSize, int txFrameSize, int txFrameCount, boolean qdiscBypass,
    int fanoutGroup, int fanoutModeFlags, int receiveBurst, AfPacketSteal steal, boolean linearTransmit)
{
    /** Room for the largest header the pipeline prepends (56 bytes of IPv6/UDP/GUE) and a VLAN tag, twice over. */
    public static final int MIN_HEADROOM = 128;
    public static final int NO_FANOUT = -1;
    /** The mode bits of the fanout argument's upper half; the PACKET_FANOUT_FLAG_* bits are above. */
    private static final int FANOUT_MODE_MASK = 0xff;
    /**
     * The rings measured in kernel-bypass.md (64 x 256 KiB receive blocks, 4096 x 2 KiB transmit slots) with a 4 ms
     * retire timeout, to bound the delay at low rates; 16 MiB + 8 MiB of ring per port.
     */
    public static final AfPacketSettings DEFAULT = new AfPacketSettings(
        256 << 10, 64, 2048, 4, MIN_HEADROOM,
        AfPacket.TPACKET_V3, 64 << 10, 2048, 4096, true,
        NO_FANOUT, AfPacket.PACKET_FANOUT_HASH, 64, AfPacketSteal.NONE, true);

    public AfPacketSettings
    {
        require(rxBlockSize > 0 && rxBlockSize % Mmap.PAGE_SIZE == 0,
            "receive block size " + rxBlockSize + " is not a positive multiple of the page size " + Mmap.PAGE_SIZE);
        require(rxBlockCount > 0, "receive block count " + rxBlockCount + " is not positive");
        require(rxFrameSize > 0 && rxFrameSize % AfPacket.TPACKET_ALIGNMENT == 0,
            "receive frame size " + rxFrameSize + " is not a positive multiple of " + AfPacket.TPACKET_ALIGNMENT);
        require(rxBlockSize % rxFrameSize == 0,
            "receive block size " + rxBlockSize + " is not a multiple of the frame size " + rxFrameSize);
        require(retireTimeoutMs >= 1 && retireTimeoutMs <= 1000,
            "retire timeout " + retireTimeoutMs + " ms not in 1..1000");
        require(headroom >= MIN_HEADROOM && headroom <= 1024, "headroom " + headroom + " not in " + MIN_HEADROOM +
            "..1024");
        require(rxFrameSize >= Tpacket3Hdr.HDRLEN + headroom + 64,
            "receive frame size " + rxFrameSize + " leaves no room for a frame after the " + Tpacket3Hdr.HDRLEN +
            "-byte header and " + headroom + " bytes of headroom");
        require(txVersion == AfPacket.TPACKET_V2 || txVersion == AfPacket.TPACKET_V3,
            "transmit ring version " + txVersion + " is neither TPACKET_V2 (1) nor TPACKET_V3 (2)");
        require(txFrameSize > 0 && txFrameSize % AfPacket.TPACKET_ALIGNMENT == 0,
            "transmit frame size " + txFrameSize + " is not a positive multiple of " + AfPacket.TPACKET_ALIGNMENT);
        require(txFrameSize >= 128, "transmit frame size " + txFrameSize + " is below 128");
        require(txBlockSize > 0 && txBlockSize % Mmap.PAGE_SIZE == 0 && txBlockSize % txFrameSize == 0,
            "transmit block size " + txBlockSize + " is not a multiple of both the page size and the frame size " +
            txFrameSize);
        require(txFrameCount > 0 && txFrameCount % (txBlockSize / txFrameSize) == 0,
            "transmit frame count " + txFrameCount + " is not a positive multiple of the " +
            txBlockSize / txFrameSize + " frames per block");
        require(fanoutGroup >= NO_FANOUT && fanoutGroup <= 0xFFFF, "fanout group " + fanoutGroup + " not in 0..65535");
        require(receiveBurst >= 1 && receiveBurst <= FrameBurst.MAX_FRAMES,
            "receive burst " + receiveBurst + " not in 1.." + FrameBurst.MAX_FRAMES);
        require(steal != null, "steal mode is required (NONE, ALL or JVS_TRAFFIC)");
    }

    /** @return whether the fanout mode is PACKET_FANOUT_EBPF, whose group needs a program to choose the socket. */
    public boolean fanoutByProgram()
    {
        return fanoutGroup != NO_FANOUT && (fanoutModeFlags & FANOUT_MODE_MASK) == AfPacket.PACKET_FANOUT_EBPF;
    }

    /** @return whether the receiving port drops any originals at tcx ingress. */
    public boolean stealFrames()
    {
        return steal != AfPacketSteal.NONE;
    }

    /** @return bytes of a transmit slot left for the frame after its header. */
    public int txFrameCapacity()
    {
        return txFrameSize - (txVersion == AfPacket.TPACKET_V3 ? Tpacket3Hdr.TX_DATA_OFFSET : Tpacket2Hdr.TX_DATA_OFFSET) -
            (linearTransmit ? AfPacket.VIRTIO_NET_HDR_SIZE : 0);
    }

    public AfPacketSettings withRxRing(final int blockSize, final int blockCount, final int retireMs)
    {
        return new AfPacketSettings(blockSize, blockCount, rxFrameSize, retireMs, headroom, txVersion, txBlockSize,
            txFrameSize, txFrameCount, qdiscBypass, fanoutGroup, fanoutModeFlags, receiveBurst,
            steal, linearTransmit);
    }

    public AfPacketSettings withTxRing(final int version, final int blockSize, final int frameCount)
    {
        return new AfPacketSettings(rxBlockSize, rxBlockCount, rxFrameSize, retireTimeoutMs, headroom, version,
            blockSize, txFrameSize, frameCount, qdiscBypass, fanoutGroup, fanoutModeFlags, receiveBurst,
            steal, linearTransmit);
    }

    public AfPacketSettings withQdiscBypass(final boolean bypass)
    {
        return new AfPacketSettings(rxBlockSize, rxBlockCount, rxFrameSize, retireTimeoutMs, headroom, txVersion,
            txBlockSize, txFrameSize, txFrameCount, bypass, fanoutGroup, fanoutModeFlags, receiveBurst,
            steal, linearTransmit);
    }

    public AfPacketSettings withFanout(final int group, final int modeFlags)
    {
        return new AfPacketSettings(rxBlockSize, rxBlockCount, rxFrameSize, retireTimeoutMs, headroom, txVersion,
            txBlockSize, txFrameSize, txFrameCount, qdiscBypass, group, modeFlags, receiveBurst,
            steal, linearTransmit);
    }

    public AfPacketSettings withReceiveBurst(final int frames)
    {
        return new AfPacketSettings(rxBlockSize, rxBlockCount, rxFrameSize, retireTimeoutMs, headroom, txVersion,
            txBlockSize, txFrameSize, txFrameCount, qdiscBypass, fanoutGroup, fanoutModeFlags, frames,
            steal, linearTransmit);
    }

    /** @param linear whether transmitted frames go into the skb's linear buffer (see {@link #linearTransmit}). */
    public AfPacketSettings withLinearTransmit(final boolean linear)
    {
        return new AfPacketSettings(rxBlockSize, rxBlockCount, rxFrameSize, retireTimeoutMs, headroom, txVersion,
            txBlockSize, txFrameSize, txFrameCount, qdiscBypass, fanoutGroup, fanoutModeFlags, receiveBurst, steal,
            linear);
    }

    /**
     * @param stealAll true for {@link AfPacketSteal#ALL} (drop every original: {@code bench l2fwd --steal}), false
     *                 for {@link AfPacketSteal#NONE}.
     */
    public AfPacketSettings withStealing(final boolean stealAll)
    {
        return withSteal(stealAll ? AfPacketSteal.ALL : AfPacketSteal.NONE);
    }

    /** @param mode which originals the receiving port drops at tcx ingress (see {@link #steal}). */
    public AfPacketSettings withSteal(final AfPacketSteal mode)
    {
        return new AfPacketSettings(rxBlockSize, rxBlockCount, rxFrameSize, retireTimeoutMs, headroom, txVersion,
            txBlockSize, txFrameSize, txFrameCount, qdiscBypass, fanoutGroup, fanoutModeFlags, receiveBurst,
            mode, linearTransmit);
    }

    /** @return the geometry and options, for logs and {@code describe()}; a stealing port says so itself. */
    public String describe()
    {
        return "rx TPACKET_V3 " + rxBlockCount + " x " + (rxBlockSize >> 10) + " KiB blocks, retire " + retireTimeoutMs +
            " ms, headroom " + headroom + "; tx TPACKET_V" + (txVersion + 1) + " " + txFrameCount + " x " + txFrameSize +
            " B slots" + (linearTransmit ? " (linear)" : "") + ", qdisc bypass " +
            (qdiscBypass ? "on (tcpdump does not see our transmits)" : "off") +
            (fanoutGroup == NO_FANOUT ? "; no fanout" :
                "; fanout group " + fanoutGroup + " mode/flags 0x" + Integer.toHexString(fanoutModeFlags) +
                (fanoutByProgram() ? " (by program)" : ""));
    }

    private static void require(final boolean condition, final String message)
    {
        if (!condition)
        {
            throw new IllegalArgumentException(message);
        }
    }
}

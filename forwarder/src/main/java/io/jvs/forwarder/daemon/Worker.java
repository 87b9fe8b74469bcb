package io.jvs.forwarder.daemon;

import io.jvs.core.packet.DropReason;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.IpFragmenter;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.core.pipeline.NeighbourMisses;
import io.jvs.core.pipeline.PathMtuReports;
import io.jvs.core.pipeline.Pipeline;
import io.jvs.forwarder.port.Port;
import io.jvs.nativebindings.Syscalls;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.function.Supplier;

/**
 * One forwarding thread's duty cycle (an Agrona {@link Agent}): poll every port, run each burst through this
 * worker's own {@link Pipeline}, send each frame by its verdict, give the burst's buffers back, flush the
 * ports; then the frames other workers handed over; and, when nothing came, sweep expired connections.
 * <p>
 * Ownership: a connection lives in the tables of the worker that owns its client
 * ({@link io.jvs.core.pipeline.ClientDispatch}). AF_PACKET ports are spread by the kernel's fanout program with
 * that same function, so every frame they deliver is this worker's. An AF_XDP socket receives what its queue
 * got, so with several workers each frame's owner is computed here and frames of other workers' clients are
 * copied into that worker's {@link HandoffRing} (counted) before the rest is processed.
 * <p>
 * Frames the pipeline passes to the host go through the interface's {@link HostTap} when the host did not see
 * them (every AF_XDP frame, which the XDP program redirected; an AF_PACKET frame only if its steal program
 * dropped the original). Nothing here locks or allocates; the snapshot is read by the pipeline once per burst.
 */
final class Worker implements Agent
{
    private static final int NO_NEIGHBOUR = DropReason.NO_NEIGHBOUR.id();
    /** The message a worker sends the conductor for a next hop without a MAC: family, then the address. */
    static final int MISS_MESSAGE = 1;
    static final int MISS_LENGTH = 24;
    /** The message a worker sends the conductor for a path MTU learnt towards a server: its IPv4 address, the MTU. */
    static final int PATH_MTU_MESSAGE = 2;
    static final int PATH_MTU_LENGTH = 8;
    /**
     * How long a frame waits for its next hop's MAC, as the kernel queues a few packets per unresolved neighbour
     * (unres_qlen) while it asks: the first packets of a connection are not lost to resolution.
     */
    static final long HOLD_NS = 1_000_000_000L;
    /** Held frames are tried again this often, and at every new snapshot. */
    static final long HOLD_RETRY_NS = 20_000_000L;
    /**
     * The most slots of a connection table a burst sweeps before its frames leave (about 64 KiB of entries); the
     * rest of what is due is swept when the worker has nothing to receive ({@link #idleSweep}).
     */
    static final int BURST_SWEEP_SLOTS = 1024;
    /** The most slots of a connection table one sweep from the idle loop takes (about 1 MiB of entries). */
    static final int IDLE_SWEEP_SLOTS = 16_384;
    /** {@link #hold} results. */
    private static final int HELD = 0;
    private static final int GIVEN_UP = 1;
    private static final int NO_ROOM = 2;
    private static final int HELD_SLOTS = 256;
    /**
     * Bytes for one packet's fragments: the largest frame a port receives split at the smallest MTU that makes no more
     * fragments than a burst holds, each starting on a 64-byte line.
     */
    private static final int FRAGMENT_MEMORY = 1 << 18;

    private static final VarHandle OFFERED_PORTS;
    private static final VarHandle ADOPTED_PORTS;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            OFFERED_PORTS = lookup.findVarHandle(Worker.class, "offeredPorts", Port[].class);
            ADOPTED_PORTS = lookup.findVarHandle(Worker.class, "adoptedPorts", Port[].class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final int index;
    /** Where the pipeline's offloaded connections are, whose counts this worker takes in; null without. */
    private XdpFlowOffload offload;
    /** The ports this worker polls: its own thread's copy of {@link #adoptedPorts}, read without an ordering. */
    private Port[] ports;
    /**
     * The ports the conductor wants this worker to poll: written with release by the conductor ({@link #offerPorts}),
     * read with acquire once a round by the worker, so that a port opened by the conductor is seen whole.
     */
    @SuppressWarnings("unused")
    private Port[] offeredPorts;
    /**
     * The ports this worker polls, written with release by the worker once it stopped touching the ones they
     * replace, read with acquire by the conductor (which then closes the old ones) and by status.
     */
    @SuppressWarnings("unused")
    private Port[] adoptedPorts;
    /** Where the worker sleeps: its receive descriptors follow its ports; null for a worker that never sleeps. */
    private PollSet pollSet;
    private final boolean[] handsOff;
    private final Pipeline pipeline;
    private final HostTap[] taps;
    private final HostPassPolicy[] hostPolicy;
    private final HandoffRing[] outbound;
    private final HandoffRing[] inbound;
    private final Wakeup[] peers;
    private final Syscalls syscalls;
    private final Supplier<FrameOwner> owners;
    private final DaemonCounters counters;
    private final FrameBurst burst = new FrameBurst();
    private final FrameBurst owned = new FrameBurst();
    private final FrameBurst handed = new FrameBurst();
    /** Where a packet that leaves in fragments is split, and the fragments as a burst for its egress port. */
    private final ByteBuffer fragmentMemory = ByteBuffer.allocateDirect(FRAGMENT_MEMORY);
    private final long fragmentBase = Frames.addressOf(fragmentMemory);
    private final IpFragmenter fragmenter = new IpFragmenter(FrameBurst.MAX_FRAMES);
    private final FrameBurst fragments = new FrameBurst();
    private final int[] fragmentIndices = new int[FrameBurst.MAX_FRAMES];
    /** Frames dropped as no-neighbour, kept (a copy, untouched by the rewrite) until their next hop resolves. */
    private final HandoffRing held = new HandoffRing(HELD_SLOTS);
    private boolean holding;
    private long heldGeneration;
    private long lastHeldRetryNs;
    private final int[] ownedFrom = new int[FrameBurst.MAX_FRAMES];
    private final int[] frameOwner = new int[FrameBurst.MAX_FRAMES];
    private final int[][] toSend;
    private final int[] toSendCount;
    private final boolean[] handedTo;
    private final int batch;
    private final RingBuffer toConductor;
    private Wakeup conductorWakeup;
    private final UnsafeBuffer miss = new UnsafeBuffer(new byte[MISS_LENGTH]);
    private final NeighbourMisses.Sink missSink = this::reportMiss;
    private final UnsafeBuffer pathMtu = new UnsafeBuffer(new byte[PATH_MTU_LENGTH]);
    private final PathMtuReports.Sink pathMtuSink = this::reportPathMtu;
    private volatile boolean running = true;
    /** Latency copies asked for (by status) and made (by this worker, between bursts). */
    private volatile long latencyAsked;
    private volatile long latencyCopied;
    private volatile long pageAsked;
    private volatile long pageAnswered;
    private ConnectionPage page;
    private final org.HdrHistogram.Histogram latencyCopy;
    private int cpu = -1;
    private long lastSweepNs = System.nanoTime();
    /** Slots of each table due to be swept from the idle loop ({@link #idleSweep}). */
    private long idleSweepDue;

    /**
     * @param index      this worker's number.
     * @param ports      its ports, by port index (one per interface).
     * @param handsOff   per port: whether frames may belong to another worker (AF_XDP with several workers).
     * @param pipeline   its pipeline.
     * @param taps       per port, the host path, or null where there is none.
     * @param hostPolicy per port, which passed frames the host has not seen.
     * @param outbound   by worker, the ring to hand frames to it (null for this worker).
     * @param inbound    by worker, the ring it hands frames to this one by (null for this worker).
     * @param peers      by worker, its wake-up.
     * @param owners     the current owner function (the conductor swaps it when the VIPs change).
     * @param toConductor where next hops without a MAC are reported ({@link #MISS_MESSAGE}), or null.
     */
    Worker(final int index, final Port[] ports, final boolean[] handsOff, final Pipeline pipeline, final HostTap[] taps,
        final HostPassPolicy[] hostPolicy, final HandoffRing[] outbound, final HandoffRing[] inbound,
        final Wakeup[] peers, final Syscalls syscalls, final Supplier<FrameOwner> owners, final DaemonCounters counters,
        final int batch, final RingBuffer toConductor)
    {
        this.index = index;
        this.ports = ports;
        OFFERED_PORTS.setRelease(this, ports);
        ADOPTED_PORTS.setRelease(this, ports);
        this.handsOff = handsOff;
        this.pipeline = pipeline;
        this.taps = taps;
        this.hostPolicy = hostPolicy;
        this.outbound = outbound;
        this.inbound = inbound;
        this.peers = peers;
        this.syscalls = syscalls;
        this.owners = owners;
        this.counters = counters;
        this.batch = batch;
        this.toConductor = toConductor;
        this.latencyCopy = pipeline.latency().copy();
        this.toSend = new int[ports.length][FrameBurst.MAX_FRAMES];
        this.toSendCount = new int[ports.length];
        this.handedTo = new boolean[outbound.length];
    }

    /**
     * @param wakeup the conductor's, written after a miss is reported so a sleeping conductor resolves it at once
     *               (set before the worker runs).
     */
    void wakeConductor(final Wakeup wakeup)
    {
        this.conductorWakeup = wakeup;
    }

    /**
     * @param cpu the CPU to bind the worker's thread to when it starts (the config's {@code cpus}), or -1.
     */
    /** Takes in the offloaded connections' counts from its rounds (set before it runs). */
    void offload(final XdpFlowOffload offload)
    {
        this.offload = offload;
    }

    void pinTo(final int cpu)
    {
        this.cpu = cpu;
    }

    @Override
    public void onStart()
    {
        if (cpu >= 0)
        {
            final int result = syscalls.pinThread(cpu);
            if (result < 0)
            {
                DaemonLog.warning(roleName() + ": cannot bind to CPU " + cpu + " (errno " + -result +
                    "): running unbound");
            }
        }
    }

    @Override
    public String roleName()
    {
        return "jvs-worker-" + index;
    }

    Pipeline pipeline()
    {
        return pipeline;
    }

    int index()
    {
        return index;
    }

    /**
     * @param pollSet where the worker sleeps, whose descriptor of a port it replaces when the port is replaced (set
     *                before the worker runs; the worker's thread alone uses it).
     */
    void sleepsIn(final PollSet pollSet)
    {
        this.pollSet = pollSet;
    }

    /** @return the ports it polls, by port index (their counters are read by other threads for status). */
    Port[] ports()
    {
        return (Port[])ADOPTED_PORTS.getAcquire(this);
    }

    /**
     * Has the worker poll {@code next} instead of its ports from its next round on (the conductor's thread, after a
     * device was made again). The ports {@code next} replaces stay open until {@link #pollsOnly} says the worker has
     * let go of them: a round under way may still receive on them and transmit their frames.
     *
     * @param next the same length as its ports; the entries that did not change are the same objects.
     */
    void offerPorts(final Port[] next)
    {
        OFFERED_PORTS.setRelease(this, next);
    }

    /** @return whether the worker polls {@code offered} and no longer touches the ports it replaced. */
    boolean pollsOnly(final Port[] offered)
    {
        return ADOPTED_PORTS.getAcquire(this) == offered;
    }

    /** Stops polling: the next duty cycle does nothing (the runner is closed after). */
    void stop()
    {
        running = false;
    }

    @Override
    public int doWork()
    {
        if (!running)
        {
            return 0;
        }
        final Port[] offered = (Port[])OFFERED_PORTS.getAcquire(this);
        if (offered != ports)
        {
            adoptPorts(offered);
        }
        final long now = System.nanoTime();
        int work = 0;
        for (int port = 0; port < ports.length; port++)
        {
            work += pollPort(port, now);
        }
        for (final HandoffRing ring : inbound)
        {
            if (ring != null)
            {
                work += pollHandoff(ring, now);
            }
        }
        if (holding)
        {
            retryHeld(now);
        }
        for (final Port port : ports)
        {
            port.flush();
        }
        if (toConductor != null && pipeline.neighbourMisses().pending() > 0)
        {
            pipeline.neighbourMisses().drain(missSink);
        }
        if (toConductor != null && pipeline.pathMtuReports().pending() > 0)
        {
            pipeline.pathMtuReports().drain(pathMtuSink);
        }
        if (latencyAsked != latencyCopied)
        {
            copyLatency();
        }
        if (pageAsked != pageAnswered)
        {
            answerPage(now);
        }
        if (offload != null)
        {
            offload.fold(now);
        }
        if (work == 0)
        {
            pipeline.followSnapshot();
            // Not work for the idle strategy, which counts the rounds without frames: a part left keeps the worker
            // from sleeping (longestSleepMs), but its spins and yields go on. Counted as work, a part reset them,
            // and on a busy core, where a yield can last the other task's time slice, the 10 ms that make more than
            // a part due passed before the 128 yields did: the worker never slept.
            idleSweep(now);
        }
        return work;
    }

    /**
     * Switches to the ports the conductor offered, between two rounds: no burst of a replaced port is in flight, and
     * none of its buffers is held anywhere (hand-offs to other workers and held frames are copies, an AF_PACKET frame
     * sent out of another port is copied into that port's ring, and an AF_XDP chunk sent zero-copy out of another
     * port of this worker's UMEM belongs to the UMEM, which outlives every port). A replaced AF_XDP port's chunks go
     * back to the UMEM first. Then the worker says, with release, that it polls the new ones only.
     */
    private void adoptPorts(final Port[] offered)
    {
        for (int p = 0; p < offered.length; p++)
        {
            if (offered[p] != ports[p])
            {
                if (ports[p] instanceof io.jvs.forwarder.port.xdp.AfXdpPort replaced)
                {
                    counters.add(index, DaemonCounters.CHUNKS_RECLAIMED, replaced.reclaimChunks());
                }
                if (pollSet != null)
                {
                    pollSet.descriptor(p, receiveFd(offered[p]));
                }
            }
        }
        ports = offered;
        ADOPTED_PORTS.setRelease(this, offered);
    }

    /** @return the descriptor that is readable when {@code port} has frames to receive. */
    static int receiveFd(final Port port)
    {
        return port instanceof io.jvs.forwarder.port.xdp.AfXdpPort xdp ? xdp.receiveFd() :
            ((io.jvs.forwarder.port.packet.AfPacketPort)port).receiveFd();
    }

    /**
     * @return whether another worker has handed this one frames not yet processed, or another thread waits for an
     *         answer (a connection page, a latency copy): the worker must not sleep.
     */
    boolean hasInbound()
    {
        if (pageAsked != pageAnswered || latencyAsked != latencyCopied)
        {
            return true;
        }
        for (final HandoffRing ring : inbound)
        {
            if (ring != null && ring.hasFrames())
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @return the longest this worker may sleep now: 0 while another worker's frames or a waiting answer are due
     *         ({@link #hasInbound}) or parts of an idle sweep are left ({@link #idleSweep}), {@link
     *         WorkerIdleStrategy#TRANSMIT_RETRY_MS} while a port's kernel has not taken all it was given (a copy-mode
     *         AF_XDP kick sends at most 32 frames and one refused sends none: frames left in the ring through a long
     *         sleep reached their hosts that much later, after newer ones), else {@link WorkerIdleStrategy#SLEEP_MS}.
     */
    int longestSleepMs()
    {
        if (hasInbound() || idleSweepDue > 0)
        {
            return 0;
        }
        for (final Port port : ports)
        {
            if (port.transmitPending())
            {
                return WorkerIdleStrategy.TRANSMIT_RETRY_MS;
            }
        }
        return WorkerIdleStrategy.SLEEP_MS;
    }

    private int pollPort(final int port, final long now)
    {
        final FrameBurst burst = this.burst;
        burst.clear();
        burst.ingressPort = port;
        final int count = ports[port].receive(burst, now);
        if (count == 0)
        {
            return 0;
        }
        // The frames' receive time is when this poll found them, not when the round began: on a core shared with
        // the kernel's receive work, the thread can lose the CPU between the two, to the very NAPI run that puts
        // these frames in the ring, and that time was not theirs in jvs.
        burst.receiveTimeNsOfAll(System.nanoTime());
        if (handsOff[port] && handOffForeign(burst) > 0)
        {
            final FrameBurst owned = this.owned;
            if (owned.count > 0)
            {
                process(owned, now, false);
                for (int i = 0; i < owned.count; i++)
                {
                    burst.taken(ownedFrom[i], owned.taken(i));
                }
            }
        }
        else
        {
            process(burst, now, false);
        }
        ports[port].release(burst);
        return count;
    }

    /**
     * Copies the frames of other workers' clients into their rings and gathers this worker's own into
     * {@link #owned} (with where each came from).
     *
     * @return how many were foreign; 0 leaves {@link #owned} untouched, to process the burst as it is.
     */
    private int handOffForeign(final FrameBurst burst)
    {
        final FrameOwner owner = owners.get();
        final int count = burst.count;
        int foreign = 0;
        final int[] frameOwner = this.frameOwner;
        for (int i = 0; i < count; i++)
        {
            final int worker = owner.workerOf(burst.address(i), burst.length(i));
            frameOwner[i] = worker;
            if (worker != index)
            {
                foreign++;
            }
        }
        if (foreign == 0)
        {
            return 0;
        }
        final FrameBurst owned = this.owned;
        owned.clear();
        owned.ingressPort = burst.ingressPort;
        for (int i = 0; i < count; i++)
        {
            final int worker = frameOwner[i];
            if (worker == index)
            {
                ownedFrom[owned.count] = i;
                final int j = owned.add(burst.address(i), burst.length(i), burst.capacity(i), burst.headroom(i),
                    burst.receiveTimeNs(i), burst.handle(i));
                owned.firewallMark(j, burst.firewallMark(i));
            }
            else if (outbound[worker].offer(burst.address(i), burst.length(i), burst.ingressPort,
                burst.firewallMark(i), burst.receiveTimeNs(i)))
            {
                handedTo[worker] = true;
                counters.add(index, DaemonCounters.HANDED_OFF, 1);
            }
            else
            {
                counters.add(index, DaemonCounters.HANDOFF_DROPPED, 1);
            }
        }
        for (int worker = 0; worker < handedTo.length; worker++)
        {
            if (handedTo[worker])
            {
                handedTo[worker] = false;
                outbound[worker].publish();
                peers[worker].wake(syscalls);
            }
        }
        return foreign;
    }

    private int pollHandoff(final HandoffRing ring, final long now)
    {
        int total = 0;
        while (true)
        {
            final FrameBurst handed = this.handed;
            handed.clear();
            final int count = ring.receive(handed, batch);
            if (count == 0)
            {
                return total;
            }
            // The frames' receive times are the first worker's: their latency includes the hand-off.
            process(handed, now, false);
            ring.release();
            counters.add(index, DaemonCounters.HANDOFF_RECEIVED, count);
            total += count;
        }
    }

    /**
     * Runs a burst through the pipeline on the round's clock and sends, passes or holds each frame by its verdict.
     *
     * @param now   the time the round started: the pipeline's clock for its timers (each frame carries its own receive
     *              time, when its poll found it, which its latency counts from).
     * @param again whether the frames are held ones, which the pipeline has counted in IPVS's counts of their
     *              service and server already ({@link Pipeline#processAgain}).
     */
    private void process(final FrameBurst frames, final long now, final boolean again)
    {
        if (again)
        {
            pipeline.processAgain(frames, now);
        }
        else
        {
            pipeline.process(frames, now);
        }
        counters.add(index, DaemonCounters.BURSTS, 1);
        final int[] toSendCount = this.toSendCount;
        for (int port = 0; port < toSendCount.length; port++)
        {
            toSendCount[port] = 0;
        }
        final int count = frames.count;
        for (int i = 0; i < count; i++)
        {
            final int verdict = frames.verdict(i);
            final int kind = Verdict.kind(verdict);
            if (kind == Verdict.TRANSMIT)
            {
                final int port = Verdict.port(verdict);
                if (port < toSendCount.length)
                {
                    if (Verdict.inFragments(verdict))
                    {
                        sendInFragments(frames, i, port, verdict);
                    }
                    else
                    {
                        toSend[port][toSendCount[port]++] = i;
                    }
                }
                else
                {
                    counters.add(index, DaemonCounters.NO_SUCH_PORT, 1);
                }
            }
            else if (kind == Verdict.PASS)
            {
                toHost(frames, i);
            }
            else if (Verdict.reason(verdict) == NO_NEIGHBOUR)
            {
                final int held = hold(frames, i);
                if (held == HELD)
                {
                    // Counted once, with the verdict it gets when it is processed again.
                    pipeline.counters().retract(verdict);
                    counters.add(index, DaemonCounters.HELD, 1);
                }
                else if (held == GIVEN_UP)
                {
                    final int answer = pipeline.answerNoNeighbour(frames, i);
                    if (Verdict.kind(answer) == Verdict.TRANSMIT && frames.ingressPort < toSendCount.length)
                    {
                        frames.verdict(i, answer);
                        toSend[frames.ingressPort][toSendCount[frames.ingressPort]++] = i;
                    }
                }
            }
        }
        // The frames' time in jvs: from their receive time to the transmit kick. Not after it: in copy mode the kick
        // (sendto) is the kernel sending the frames, its work and not jvs's, and it would double the figure.
        pipeline.recordLatency(frames, System.nanoTime());
        for (int port = 0; port < toSendCount.length; port++)
        {
            if (toSendCount[port] > 0)
            {
                ports[port].transmit(frames, toSend[port], toSendCount[port]);
            }
        }
    }

    /**
     * Sends a packet too long for its egress port's MTU (IPv4 without DF) as fragments, copied out of the frame, after
     * the frames of the burst queued for that port before it, so that the port sends the burst's packets in order.
     * One that cannot be split is dropped: the pipeline's transmit becomes an mtu-exceeded drop.
     */
    private void sendInFragments(final FrameBurst frames, final int i, final int port, final int verdict)
    {
        if (toSendCount[port] > 0)
        {
            ports[port].transmit(frames, toSend[port], toSendCount[port]);
            toSendCount[port] = 0;
        }
        final int count = fragmenter.fragmentFrame(frames.address(i), frames.length(i), Verdict.fragmentMtu(verdict),
            fragmentBase, FRAGMENT_MEMORY);
        if (count <= 0)
        {
            pipeline.counters().reverdict(verdict, Verdict.drop(DropReason.MTU_EXCEEDED));
            counters.add(index, DaemonCounters.FRAGMENTATION_FAILED, 1);
            return;
        }
        fragments.clear();
        for (int f = 0; f < count; f++)
        {
            fragments.add(fragmenter.address(f), fragmenter.length(f), fragmenter.length(f), 0,
                frames.receiveTimeNs(i));
            fragmentIndices[f] = f;
        }
        ports[port].transmit(fragments, fragmentIndices, count);
        counters.add(index, DaemonCounters.FRAGMENTED, 1);
        counters.add(index, DaemonCounters.FRAGMENTS, count);
    }

    /**
     * @return {@link #HELD}; {@link #GIVEN_UP} when the frame has waited {@link #HOLD_NS} for its next hop; or
     *         {@link #NO_ROOM} when the hold is full (dropped without a word, as the kernel drops what overflows a
     *         neighbour's queue).
     */
    private int hold(final FrameBurst frames, final int i)
    {
        if (System.nanoTime() - frames.receiveTimeNs(i) > HOLD_NS)
        {
            counters.add(index, DaemonCounters.HELD_EXPIRED, 1);
            return GIVEN_UP;
        }
        if (!held.offer(frames.address(i), frames.length(i), frames.ingressPort, frames.firewallMark(i),
            frames.receiveTimeNs(i)))
        {
            return NO_ROOM;
        }
        held.publish();
        holding = true;
        return HELD;
    }

    /**
     * Runs the held frames through the pipeline again once a newer snapshot may know their next hops (or after
     * {@link #HOLD_RETRY_NS}): their connection state was already moved, and a second pass is what a duplicate
     * of the packet would do, but for the counts: the first pass counted each packet in its service's and server's
     * IPVS counts, as IPVS counts a packet before it transmits it, so {@link Pipeline#processAgain} counts only the
     * frames that now leave. Those still without a next hop are held again until {@link #HOLD_NS}.
     */
    private void retryHeld(final long now)
    {
        final long generation = pipeline.currentPlane().generation();
        if (generation == heldGeneration && now - lastHeldRetryNs < HOLD_RETRY_NS)
        {
            return;
        }
        heldGeneration = generation;
        lastHeldRetryNs = now;
        holding = false;
        final FrameBurst frames = this.handed;
        // Only those held before this pass: a frame held again waits for the next one.
        int left = held.waiting();
        while (left > 0)
        {
            frames.clear();
            final int count = held.receive(frames, Math.min(batch, left));
            if (count == 0)
            {
                break;
            }
            process(frames, now, true);
            held.release();
            left -= count;
        }
    }

    private void toHost(final FrameBurst frames, final int i)
    {
        final int port = frames.ingressPort;
        final HostTap tap = taps[port];
        if (tap == null || !hostPolicy[port].hostMissed(frames.address(i), frames.length(i)))
        {
            return;
        }
        if (tap.write(index, frames.address(i), frames.length(i)))
        {
            counters.add(index, DaemonCounters.HOST_PASSED, 1);
        }
        else
        {
            counters.add(index, DaemonCounters.HOST_REFUSED, 1);
        }
    }

    private void answerPage(final long nowNs)
    {
        final long asked = pageAsked;
        final ConnectionPage requested = page;
        requested.fill(requested.v6 ? pipeline.connectionsV6() : pipeline.connectionsV4(),
            io.jvs.core.conn.ConnectionTable.tick(nowNs));
        pageAnswered = asked;
    }

    /**
     * Has the worker fill a page of its connection entries between two bursts (called by another thread, one at a
     * time per worker: the caller serialises listings).
     *
     * @param into      the page to fill; its {@code v6} and {@code from} say which table and where to start.
     * @param wake      wakes the worker if it sleeps (the caller's own bindings write its eventfd).
     * @param timeoutNs how long to wait.
     * @return whether the worker answered in time (false when it is stopped).
     */
    boolean connections(final ConnectionPage into, final Runnable wake, final long timeoutNs)
    {
        final long asked = requestConnections(into);
        wake.run();
        final long deadline = System.nanoTime() + timeoutNs;
        while (pageAnswered != asked)
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return true;
    }

    /**
     * Asks for a page of connection entries without waiting: the worker fills it in its next round. {@link
     * #connections} waits for the answer; the daemon's warm-up asks its scratch workers now and then, so that the
     * branch of {@link #doWork} that answers is compiled from use rather than as a trap, which the first live
     * listing ({@code ipvsadm -L -c}) would spring, sending the worker's loop back to the interpreter.
     *
     * @return the request's number: answered once {@link #pagesAnswered()} has reached it.
     */
    long requestConnections(final ConnectionPage into)
    {
        page = into;
        final long asked = pageAsked + 1;
        pageAsked = asked;
        return asked;
    }

    /** @return how many page requests this worker has answered. */
    long pagesAnswered()
    {
        return pageAnswered;
    }

    /**
     * Asks for a copy of the latency histogram without waiting: the worker makes it in its next round. {@link
     * #latency} waits for it; the daemon's warm-up asks its scratch workers now and then, for the reason {@link
     * #requestConnections} gives (here the first status would spring the trap).
     *
     * @return the request's number: answered once {@link #latencyCopiesMade()} has reached it.
     */
    long requestLatencyCopy()
    {
        final long asked = latencyAsked + 1;
        latencyAsked = asked;
        return asked;
    }

    /** @return how many latency copies this worker has made. */
    long latencyCopiesMade()
    {
        return latencyCopied;
    }

    private void copyLatency()
    {
        final long asked = latencyAsked;
        latencyCopy.reset();
        latencyCopy.add(pipeline.latency());
        latencyCopied = asked;
    }

    /**
     * A consistent copy of this worker's per-packet latency histogram (receive to the transmit kick, ns), made by the worker
     * between two bursts: HdrHistogram is not safe to read while it records. Called by another thread.
     *
     * @param wake      wakes the worker if it sleeps: an idle worker would otherwise answer only when its poll(2)
     *                  times out ({@link WorkerIdleStrategy#SLEEP_MS}), and the caller spins until then.
     * @param timeoutNs how long to wait.
     * @return the copy, or null when the worker did not answer within the time (stopped).
     */
    org.HdrHistogram.Histogram latency(final Runnable wake, final long timeoutNs)
    {
        final long asked = requestLatencyCopy();
        wake.run();
        final long deadline = System.nanoTime() + timeoutNs;
        while (latencyCopied != asked)
        {
            if (System.nanoTime() - deadline > 0)
            {
                return null;
            }
            Thread.onSpinWait();
            Thread.yield();
        }
        return latencyCopy.copy();
    }

    private void reportMiss(final boolean v6, final long high, final long low)
    {
        miss.putLong(0, v6 ? 1 : 0);
        miss.putLong(8, high);
        miss.putLong(16, low);
        // A full ring loses the report; the next packet for that next hop reports it again.
        if (toConductor.write(MISS_MESSAGE, miss, 0, MISS_LENGTH))
        {
            counters.add(index, DaemonCounters.NEIGHBOUR_MISSES, 1);
            if (conductorWakeup != null)
            {
                conductorWakeup.wake(syscalls);
            }
        }
    }

    private void reportPathMtu(final int server, final int mtu)
    {
        pathMtu.putInt(0, server);
        pathMtu.putInt(4, mtu);
        // A full ring loses the report; the router's next error reports it again.
        if (toConductor.write(PATH_MTU_MESSAGE, pathMtu, 0, PATH_MTU_LENGTH) && conductorWakeup != null)
        {
            conductorWakeup.wake(syscalls);
        }
    }

    /**
     * With nothing to receive, expired connections are still swept: each table end to end once a second. What is due
     * is swept {@link #IDLE_SWEEP_SLOTS} slots at a time, the ports polled between, so that a frame arriving during a
     * sweep waits for one part of it (after a sleep, a tenth of the tables is due).
     *
     * @return 1 while some of what is due is left (the worker polls again rather than sleep: {@link
     *         #longestSleepMs}), else 0.
     */
    int idleSweep(final long now)
    {
        final long elapsed = now - lastSweepNs;
        final long slots = Math.max(pipeline.connectionsV4().slots(), pipeline.connectionsV6().slots());
        if (elapsed >= 10_000_000L)
        {
            lastSweepNs = now;
            idleSweepDue = Math.min(slots, idleSweepDue + Math.max(64, slots * Math.min(elapsed,
                Pipeline.SWEEP_PERIOD_NS) / Pipeline.SWEEP_PERIOD_NS));
        }
        if (idleSweepDue == 0)
        {
            return 0;
        }
        final int budget = (int)Math.min(idleSweepDue, IDLE_SWEEP_SLOTS);
        idleSweepDue -= budget;
        pipeline.sweep(now, budget);
        return idleSweepDue > 0 ? 1 : 0;
    }
}

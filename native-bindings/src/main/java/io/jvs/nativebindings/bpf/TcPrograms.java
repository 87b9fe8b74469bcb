package io.jvs.nativebindings.bpf;

import io.jvs.nativebindings.Syscalls;

import static io.jvs.nativebindings.bpf.BpfRegister.R0;

/**
 * tc programs jvs attaches through {@link TcxLink}, and the tcx return codes ({@code enum tcx_action_base}).
 */
public final class TcPrograms
{
    /** {@code TCX_NEXT}: run the next program on the hook, or let the frame go on when there is none. */
    public static final int NEXT = -1;
    /** {@code TCX_PASS}: let the frame go on, skipping the remaining programs. */
    public static final int PASS = 0;
    /** {@code TCX_DROP} ({@code TC_ACT_SHOT}): free the frame. */
    public static final int DROP = 2;

    public static final String DROP_ALL_NAME = "jvs_steal";
    public static final String STEAL_JVS_TRAFFIC_NAME = "jvs_steal_jvs";

    private TcPrograms()
    {
    }

    /**
     * {@code return TCX_DROP;}: at tcx ingress the kernel's stack never sees the frame, while AF_PACKET sockets
     * bound to every protocol already have their copy (they run first). That is how an AF_PACKET port "steals"
     * the frames of a device dedicated to it.
     */
    public static BpfBytecode dropAll()
    {
        return new BpfAssembler()
            .mov64(R0, DROP)
            .exit()
            .build();
    }

    /**
     * Loads {@link #dropAll()} as a SCHED_CLS program for tcx ingress.
     *
     * @throws io.jvs.nativebindings.NativeCallException EPERM without CAP_BPF (and CAP_NET_ADMIN).
     */
    public static BpfProgram loadDropAll(final Syscalls syscalls)
    {
        // The kernel accepts any expected attach type for SCHED_CLS; name the hook it is meant for, as libbpf does.
        return BpfProgram.load(syscalls, BpfProgram.TYPE_SCHED_CLS, TcxDirection.INGRESS.attachType(), DROP_ALL_NAME,
            dropAll(), 0);
    }

    /**
     * Drops exactly the frames {@link XdpPrograms#redirectJvsTraffic} would redirect ({@code TCX_DROP}) and lets
     * everything else go on ({@code TCX_NEXT}): ARP, neighbour discovery, ping to a VIP and the box's own traffic
     * reach the kernel, while the originals of what jvs forwards do not (the AF_PACKET socket, a packet tap, has
     * its copy first). Without it the kernel, which holds the VIPs on {@code lo}, would answer a client's SYN with
     * a reset before jvs's rewritten SYN reached the server. The same decision code as the XDP program
     * ({@link JvsTrafficRule}) over the same maps ({@link XdpVipFilter}), so the VIP set changes for both at once.
     */
    public static BpfBytecode stealJvsTraffic()
    {
        final BpfAssembler asm = new BpfAssembler();
        JvsTrafficRule.decide(asm, JvsTrafficRule.Context.TC, "drop", "next");
        return asm.label("next")
            .mov64(R0, NEXT)
            .exit()
            .label("drop")
            .mov64(R0, DROP)
            .exit()
            .build();
    }

    /**
     * Loads {@link #stealJvsTraffic()} over {@code maps} as a SCHED_CLS program for tcx ingress.
     *
     * @throws io.jvs.nativebindings.NativeCallException EPERM without CAP_BPF (and CAP_NET_ADMIN).
     */
    public static BpfProgram loadStealJvsTraffic(final Syscalls syscalls, final XdpVipFilter maps)
    {
        return BpfProgram.load(syscalls, BpfProgram.TYPE_SCHED_CLS, TcxDirection.INGRESS.attachType(),
            STEAL_JVS_TRAFFIC_NAME, stealJvsTraffic().link(maps.mapFds()), 0);
    }
}

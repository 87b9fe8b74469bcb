/**
 * The AF_XDP port: frames move between the driver and a {@link io.jvs.forwarder.port.xdp.Umem} shared with
 * the kernel, through four single-producer single-consumer rings per socket
 * ({@link io.jvs.forwarder.port.xdp.XdpRing}).
 * <pre>
 *            fill ring  ---- free chunks ---->  kernel  ---- received frames ---->  RX ring
 *   receive port (device A, queue q, owns the UMEM, XDP program redirects queue q to it)
 *                                                 | chunk lent to the burst, MACs rewritten in place
 *   transmit port (device B, queue q, XDP_SHARED_UMEM): TX ring ---> kernel ---> completion ring
 *                                                 | completed chunk back on the UMEM's free stack
 * </pre>
 * A forwarded frame is never copied in user space: the transmit port puts the receive port's chunk on its
 * TX ring and marks it {@linkplain io.jvs.core.pipeline.FrameBurst#taken taken}. Copy-mode TX (all veth can
 * do) moves at most 32 frames per sendto kick, so transmit and flush kick once each.
 * <p>
 * Entry point: {@link io.jvs.forwarder.port.xdp.AfXdpForwardingPair#open}. Facts it relies on (ring layout,
 * EBUSY after close, bind flags of a shared socket, veth checksum and queue quirks) are in the project's
 * kernel-bypass notes; the forwarder tests of this package check them on the running kernel.
 */
package io.jvs.forwarder.port.xdp;

package io.jvs.forwarder.daemon.it;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.BpfAssembler;
import io.jvs.nativebindings.bpf.BpfBytecode;
import io.jvs.nativebindings.bpf.BpfProgram;
import io.jvs.nativebindings.bpf.XdpAction;
import io.jvs.nativebindings.bpf.XdpLink;
import io.jvs.nativebindings.bpf.XdpMetadata;
import io.jvs.nativebindings.bpf.XdpMode;
import io.jvs.nativebindings.testing.TestNetwork;

import static io.jvs.nativebindings.bpf.BpfCondition.EQUAL;
import static io.jvs.nativebindings.bpf.BpfCondition.GREATER;
import static io.jvs.nativebindings.bpf.BpfCondition.NOT_EQUAL;
import static io.jvs.nativebindings.bpf.BpfOpcode.ALU_AND;
import static io.jvs.nativebindings.bpf.BpfRegister.R0;
import static io.jvs.nativebindings.bpf.BpfRegister.R1;
import static io.jvs.nativebindings.bpf.BpfRegister.R2;
import static io.jvs.nativebindings.bpf.BpfRegister.R3;
import static io.jvs.nativebindings.bpf.BpfRegister.R4;
import static io.jvs.nativebindings.bpf.BpfRegister.R5;
import static io.jvs.nativebindings.bpf.BpfRegister.R6;
import static io.jvs.nativebindings.bpf.BpfRegister.R7;
import static io.jvs.nativebindings.bpf.BpfSize.BYTE;
import static io.jvs.nativebindings.bpf.BpfSize.HALF;
import static io.jvs.nativebindings.bpf.BpfSize.WORD;

/**
 * The real server's end of a TUN service, in place of the kernel's {@code tunl0} (this machine's kernel has
 * no ipip, sit or ip6_tunnel module): an XDP program that strips the outer header of IP-in-IP addressed to
 * the real server and hands the inner packet to the stack, as if it had arrived bare. It handles
 * <ul>
 *   <li>outer IPv4 (no options, not a fragment) with protocol 4 (IPv4 inside, RFC 2003) or 41 (IPv6
 *       inside, RFC 4213), to the server's IPv4 address;</li>
 *   <li>outer IPv6 (no extension headers) with next header 4 or 41 (RFC 2473), to the server's IPv6
 *       address;</li>
 * </ul>
 * and passes everything else unchanged. To strip, it copies the two MAC addresses forward over the outer
 * header, writes the inner EtherType after them and moves the packet's start with
 * {@code bpf_xdp_adjust_head}; generic XDP then re-reads the EtherType ({@code netif_receive_generic_xdp}
 * calls {@code eth_type_trans} when it changed), so the stack sees an IPv4 or IPv6 frame.
 * <p>
 * The inner packet is whatever the director sent: its destination (the VIP) must be local to the server,
 * on {@code lo}, and reverse-path filtering off, as for the kernel's tunnel.
 */
public final class TunnelDecapsulator
{
    /** {@code long bpf_xdp_adjust_head(xdp_md, delta)}: 0, or a negative errno when the new start is invalid. */
    public static final int HELPER_XDP_ADJUST_HEAD = 44;
    public static final int IPPROTO_IPIP = 4;
    public static final int IPPROTO_IPV6 = 41;
    public static final String PROGRAM_NAME = "jvs_test_decap";

    // EtherTypes and the fields below as a little-endian load of the big-endian field reads them.
    private static final int ETH_P_IPV4 = 0x0008;
    private static final int ETH_P_IPV6 = 0xdd86;
    private static final int ETHERNET_HEADER = 14;
    private static final int ETHERTYPE_OFFSET = 12;
    private static final int MAC_ADDRESSES = 12;
    private static final int IPV4_HEADER = 20;
    private static final int IPV6_HEADER = 40;
    /** Version 4, IHL 5: an outer header without options. */
    private static final int IPV4_VERSION_IHL_NO_OPTIONS = 0x45;
    private static final int IPV4_FRAGMENT_FIELD = 6;
    /** The fragment offset and MF bits (0x3fff) of the flags/offset field, as a little-endian load reads them. */
    private static final int IPV4_FRAGMENT_BITS = 0xff3f;
    private static final int IPV4_PROTOCOL = 9;
    private static final int IPV4_DESTINATION = 16;
    private static final int IPV6_NEXT_HEADER = 6;
    private static final int IPV6_DESTINATION = 24;

    private TunnelDecapsulator()
    {
    }

    /**
     * @param ipv4 the real server's IPv4 address, the outer destination it accepts; null for none.
     * @param ipv6 its IPv6 address; null for none.
     * @return the program, which uses no maps.
     */
    public static BpfBytecode program(final Inet4Address ipv4, final Inet6Address ipv6)
    {
        if (ipv4 == null && ipv6 == null)
        {
            throw new IllegalArgumentException("a decapsulator needs the real server's IPv4 or IPv6 address");
        }
        // r6 = ctx, r2 = data, r3 = data_end, r7 = the inner EtherType (as loaded) once known.
        final BpfAssembler asm = new BpfAssembler()
            .mov64(R6, R1)
            .load(WORD, R2, R6, XdpMetadata.DATA)
            .load(WORD, R3, R6, XdpMetadata.DATA_END)
            .mov64(R4, R2)
            .add64(R4, ETHERNET_HEADER + IPV4_HEADER)
            .jumpIf(R4, GREATER, R3, "pass")
            .load(HALF, R5, R2, ETHERTYPE_OFFSET)
            .jumpIf(R5, EQUAL, ETH_P_IPV4, "ipv4")
            .jumpIf(R5, EQUAL, ETH_P_IPV6, "ipv6")
            .jump("pass");
        outerIpv4(asm, ipv4);
        outerIpv6(asm, ipv6);
        // The verifier refuses unreachable instructions: a family without an address has no strip code.
        if (ipv4 != null)
        {
            strip(asm, IPV4_HEADER);
        }
        if (ipv6 != null)
        {
            strip(asm, IPV6_HEADER);
        }
        return asm.label("pass")
            .mov64(R0, XdpAction.PASS)
            .exit()
            .build();
    }

    private static void outerIpv4(final BpfAssembler asm, final Inet4Address address)
    {
        asm.label("ipv4");
        if (address == null)
        {
            asm.jump("pass");
            return;
        }
        asm.load(BYTE, R5, R2, ETHERNET_HEADER)
            .jumpIf(R5, NOT_EQUAL, IPV4_VERSION_IHL_NO_OPTIONS, "pass")
            .load(HALF, R5, R2, ETHERNET_HEADER + IPV4_FRAGMENT_FIELD)
            .alu64(ALU_AND, R5, IPV4_FRAGMENT_BITS)
            .jumpIf(R5, NOT_EQUAL, 0, "pass");
        destinationIs(asm, ETHERNET_HEADER + IPV4_DESTINATION, address.getAddress());
        asm.load(BYTE, R5, R2, ETHERNET_HEADER + IPV4_PROTOCOL);
        innerEtherType(asm, "ipv4");
        asm.jump("strip" + IPV4_HEADER);
    }

    private static void outerIpv6(final BpfAssembler asm, final Inet6Address address)
    {
        asm.label("ipv6");
        if (address == null)
        {
            asm.jump("pass");
            return;
        }
        asm.mov64(R4, R2)
            .add64(R4, ETHERNET_HEADER + IPV6_HEADER)
            .jumpIf(R4, GREATER, R3, "pass");
        destinationIs(asm, ETHERNET_HEADER + IPV6_DESTINATION, address.getAddress());
        asm.load(BYTE, R5, R2, ETHERNET_HEADER + IPV6_NEXT_HEADER);
        innerEtherType(asm, "ipv6");
        asm.jump("strip" + IPV6_HEADER);
    }

    /** Passes unless the address at {@code offset} (already bounds-checked) is {@code address}. */
    private static void destinationIs(final BpfAssembler asm, final int offset, final byte[] address)
    {
        final ByteBuffer words = ByteBuffer.wrap(address).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < address.length; i += Integer.BYTES)
        {
            // A 32-bit compare: the 64-bit one would sign-extend the immediate against a zero-extended load.
            asm.load(WORD, R5, R2, offset + i)
                .jumpIf32(R5, NOT_EQUAL, words.getInt(i), "pass");
        }
    }

    /** r5 = the outer protocol; r7 = the inner EtherType for 4 and 41, else pass. */
    private static void innerEtherType(final BpfAssembler asm, final String outer)
    {
        asm.mov64(R7, ETH_P_IPV4)
            .jumpIf(R5, EQUAL, IPPROTO_IPIP, outer + "_inner")
            .mov64(R7, ETH_P_IPV6)
            .jumpIf(R5, NOT_EQUAL, IPPROTO_IPV6, "pass")
            .label(outer + "_inner");
    }

    /**
     * Moves the MAC addresses {@code outerLength} bytes on, writes r7 as the EtherType after them and drops
     * the first {@code outerLength} bytes. The frame holds at least {@code 14 + outerLength} bytes (checked
     * before the jump here), so every store is in bounds and the adjustment cannot fail; if it did, the frame
     * is already rewritten and is dropped rather than passed half-done.
     */
    private static void strip(final BpfAssembler asm, final int outerLength)
    {
        asm.label("strip" + outerLength);
        for (int i = 0; i < MAC_ADDRESSES; i += Integer.BYTES)
        {
            asm.load(WORD, R4, R2, i)
                .store(WORD, R2, outerLength + i, R4);
        }
        asm.store(HALF, R2, outerLength + ETHERTYPE_OFFSET, R7)
            .mov64(R1, R6)
            .mov64(R2, outerLength)
            .call(HELPER_XDP_ADJUST_HEAD)
            .jumpIf(R0, EQUAL, 0, "pass")
            .mov64(R0, XdpAction.DROP)
            .exit();
    }

    /**
     * Loads the program and attaches it, in generic (SKB) mode, to {@code device} in {@code namespace}. The
     * program's own fd is closed; the link holds it.
     *
     * @return the link: the program runs until it is closed (or this JVM exits).
     */
    public static XdpLink attach(final String namespace, final String device, final Inet4Address ipv4,
        final Inet6Address ipv6)
    {
        final BpfBytecode code = program(ipv4, ipv6);
        return TestNetwork.callIn(namespace, () ->
        {
            final Syscalls syscalls = Syscalls.create();
            try (BpfProgram program = BpfProgram.loadXdp(syscalls, PROGRAM_NAME, code))
            {
                return XdpLink.attach(syscalls, program, device, XdpMode.SKB);
            }
        });
    }
}

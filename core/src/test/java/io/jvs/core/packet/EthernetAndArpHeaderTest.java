package io.jvs.core.packet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Ethernet II addresses read and written in place, MAC text both ways, and the ARP fields (RFC 826) of an
 * Ethernet/IPv4 request, byte for byte against hand-built frames.
 */
class EthernetAndArpHeaderTest
{
    private final ByteBuffer memory = ByteBuffer.allocateDirect(64);
    private final long frame = Frames.addressOf(memory);

    private static byte[] bytes(final int... values)
    {
        final byte[] bytes = new byte[values.length];
        for (int i = 0; i < values.length; i++)
        {
            bytes[i] = (byte)values[i];
        }
        return bytes;
    }

    @Test
    void shouldReadBothAddressesOfAFrame()
    {
        Frames.write(bytes(0x02, 0x11, 0x22, 0x33, 0x44, 0xF5, 0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x08, 0x00), frame);
        assertThat(EthernetHeader.destination(frame)).isEqualTo(0x0211_2233_44F5L);
        assertThat(EthernetHeader.source(frame)).isEqualTo(0xFEDC_BA98_7654L);
    }

    @Test
    void shouldWriteEachAddressInPlaceLeavingTheRestAlone()
    {
        Frames.write(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0x08, 0x00, 0x45}, frame);
        EthernetHeader.destination(frame, 0x0211_2233_44F5L);
        assertThat(Frames.read(frame, 15)).containsExactly(
            bytes(0x02, 0x11, 0x22, 0x33, 0x44, 0xF5, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x08, 0x00, 0x45));
        EthernetHeader.source(frame, 0x8001_0203_0405L);
        assertThat(Frames.read(frame, 15)).containsExactly(
            bytes(0x02, 0x11, 0x22, 0x33, 0x44, 0xF5, 0x80, 0x01, 0x02, 0x03, 0x04, 0x05, 0x08, 0x00, 0x45));
        assertThat(EthernetHeader.source(frame)).isEqualTo(0x8001_0203_0405L);
    }

    @Test
    void shouldPrintAMacWithTwoLowerCaseDigitsAnOctet()
    {
        assertThat(EthernetHeader.macToString(0x0211_2233_44F5L)).isEqualTo("02:11:22:33:44:f5");
        assertThat(EthernetHeader.macToString(0)).isEqualTo("00:00:00:00:00:00");
        assertThat(EthernetHeader.macToString(0xFFFF_FFFF_FFFFL)).isEqualTo("ff:ff:ff:ff:ff:ff");
        assertThat(EthernetHeader.macToString(0xA0B0_C0D0_E0F0L)).isEqualTo("a0:b0:c0:d0:e0:f0");
    }

    @Test
    void shouldParseAMacWithColonsOrDashesAndOneOrTwoDigitsAnOctet()
    {
        assertThat(EthernetHeader.parseMac("02:11:22:33:44:f5")).isEqualTo(0x0211_2233_44F5L);
        assertThat(EthernetHeader.parseMac(" FF-FF-FF-FF-FF-FE ")).isEqualTo(0xFFFF_FFFF_FFFEL);
        assertThat(EthernetHeader.parseMac("2:1:0:a:b:c")).isEqualTo(0x0201_000A_0B0CL);
        assertThat(EthernetHeader.parseMac(EthernetHeader.macToString(0x8001_0203_0405L))).isEqualTo(0x8001_0203_0405L);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "02:11:22:33:44", "02:11:22:33:44:f5:66", "02:11::33:44:f5", "02:11:22:33:44:f55",
        "02:11:22:33:44:g5", "02:11:22:33:44:"})
    void shouldRefuseWhatIsNotAMac(final String text)
    {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> EthernetHeader.parseMac(text))
            .withMessage("not a MAC address: " + text);
    }

    @Test
    void shouldTellTheVlanTagTypes()
    {
        assertThat(EthernetHeader.isVlanTag(0x8100)).isTrue();
        assertThat(EthernetHeader.isVlanTag(0x88A8)).isTrue();
        assertThat(EthernetHeader.isVlanTag(0x9100)).isTrue();
        assertThat(EthernetHeader.isVlanTag(0x0800)).isFalse();
        assertThat(EthernetHeader.isVlanTag(0x86DD)).isFalse();
    }

    /** An ARP request from 10.0.0.1 (02:00:00:00:00:01) for 10.0.0.100, as a host sends it. */
    private static byte[] arpRequest()
    {
        return bytes(
            0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01,
            0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 10, 0, 0, 1,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 10, 0, 0, 100);
    }

    @Test
    void shouldReadTheFieldsOfAnArpRequest()
    {
        Frames.write(arpRequest(), frame);
        assertThat(ArpHeader.isEthernetIpv4(frame)).isTrue();
        assertThat(ArpHeader.opcode(frame)).isEqualTo(ArpHeader.OPCODE_REQUEST);
        assertThat(ArpHeader.senderMac(frame)).isEqualTo(0x0200_0000_0001L);
        assertThat(ArpHeader.senderIp(frame)).isEqualTo(0x0A00_0001);
        assertThat(ArpHeader.targetIp(frame)).isEqualTo(0x0A00_0064);
    }

    @Test
    void shouldReadAReplysHighSenderMacAndOpcode()
    {
        final byte[] reply = arpRequest();
        reply[7] = 2;
        System.arraycopy(bytes(0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54), 0, reply, 8, 6);
        reply[14] = (byte)192;
        Frames.write(reply, frame);
        assertThat(ArpHeader.opcode(frame)).isEqualTo(ArpHeader.OPCODE_REPLY);
        assertThat(ArpHeader.senderMac(frame)).isEqualTo(0xFEDC_BA98_7654L);
        assertThat(ArpHeader.senderIp(frame)).isEqualTo(0xC000_0001);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4, 5})
    void shouldRefuseArpForOtherHardwareProtocolsOrLengths(final int field)
    {
        // Hardware type 0x0101 or 6 (IEEE 802), protocol 0x86DD or 0x08DD, hardware length 8, protocol length 16.
        final byte[] other = arpRequest();
        final int[] replacement = {0x01, 0x06, 0x86, 0xDD, 8, 16};
        other[field] = (byte)replacement[field];
        if (field == 2)
        {
            other[3] = (byte)0xDD;
        }
        Frames.write(other, frame);
        assertThat(ArpHeader.isEthernetIpv4(frame)).as("field %d", field).isFalse();
    }
}

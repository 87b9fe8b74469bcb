package io.jvs.core.net;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class IpAddressTest
{
    @ParameterizedTest
    @CsvSource({
        "10.0.0.1,                 10.0.0.1",
        "255.255.255.255,          255.255.255.255",
        "2001:db8::1,              2001:db8::1",
        "[2001:db8::1],            2001:db8::1",
        "2001:DB8:0:0:0:0:0:1,     2001:db8::1",
        "2001:db8:0:0:1:0:0:1,     2001:db8::1:0:0:1",
        "2001:db8:0:1:1:1:1:1,     2001:db8:0:1:1:1:1:1",
        "::,                       ::",
        "::1,                      ::1",
        "fe80::,                   fe80::",
        "::ffff:192.0.2.1,         ::ffff:192.0.2.1",
    })
    void shouldFormatAsInetNtopDoes(final String text, final String expected)
    {
        assertThat(IpAddress.parse(text)).hasToString(expected);
        assertThat(IpAddress.parse(expected)).isEqualTo(IpAddress.parse(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "10.0.0", "10.0.0.256", "1.2.3.4.5", "a.b.c.d", "10.0.0.1x", "host.example",
        "2001:db8::1::2", "fe80::1%eth0", "[10.0.0.1]", "1234"})
    void shouldRefuseWhatIsNotAnAddressLiteral(final String text)
    {
        assertThatIllegalArgumentException().isThrownBy(() -> IpAddress.parse(text));
    }

    @Test
    void shouldFoldIpv6AsTheXorOfItsWords()
    {
        final IpAddress address = IpAddress.parse("0001:0002:0003:0004:0005:0006:0007:0008");
        assertThat(address.fold()).isEqualTo(0x0001_0002 ^ 0x0003_0004 ^ 0x0005_0006 ^ 0x0007_0008);
        assertThat(IpAddress.parse("10.0.0.1").fold()).isEqualTo(0x0A00_0001);
    }

    @Test
    void shouldMaskToAPrefix()
    {
        assertThat(IpAddress.parse("10.0.0.3").mask(24)).isEqualTo(IpAddress.parse("10.0.0.0"));
        assertThat(IpAddress.parse("10.0.0.3").mask(0)).isEqualTo(IpAddress.parse("0.0.0.0"));
        assertThat(IpAddress.parse("10.0.0.3").mask(32)).isEqualTo(IpAddress.parse("10.0.0.3"));
        assertThat(IpAddress.parse("2001:db8:1:2:3:4:5:6").mask(64)).isEqualTo(IpAddress.parse("2001:db8:1:2::"));
        assertThat(IpAddress.parse("2001:db8:1:2:3:4:5:6").mask(80)).isEqualTo(IpAddress.parse("2001:db8:1:2:3::"));
        assertThat(IpAddress.parse("2001:db8:1:2:3:4:5:6").mask(128)).isEqualTo(IpAddress.parse("2001:db8:1:2:3:4:5:6"));
    }

    @Test
    void shouldBracketIpv6NextToAPort()
    {
        assertThat(IpAddress.parse("2001:db8::1").toBracketedString()).isEqualTo("[2001:db8::1]");
        assertThat(IpAddress.parse("10.0.0.1").toBracketedString()).isEqualTo("10.0.0.1");
    }

    @Test
    void shouldCarryAddressesIntoAFlowTuple()
    {
        final FlowTuple flow = new FlowTuple().set(
            Protocol.UDP, IpAddress.parse("2001:db8::5"), 4000, IpAddress.parse("2001:db8::100"), 53);
        assertThat(flow.isV6()).isTrue();
        assertThat(flow.sourceAddress()).isEqualTo(IpAddress.parse("2001:db8::5"));
        assertThat(flow.destinationFold()).isEqualTo(IpAddress.parse("2001:db8::100").fold());
        assertThatIllegalArgumentException().isThrownBy(() -> flow.set(
            Protocol.UDP, IpAddress.parse("10.0.0.1"), 1, IpAddress.parse("2001:db8::100"), 53));
    }
}

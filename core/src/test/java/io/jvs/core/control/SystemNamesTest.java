package io.jvs.core.control;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Service names from a services file, host names from the resolver.
 */
class SystemNamesTest
{
    @Test
    void shouldNamePortsAndFindPortsByNameOrAlias(@TempDir final Path dir) throws IOException
    {
        final Path file = dir.resolve("services");
        Files.writeString(file, "# comment\nhttp\t\t80/tcp\t\twww # WorldWideWeb\nhttp 80/udp\n" +
            "domain 53/udp\nbroken x/tcp\nwww-alt 80/tcp\n");
        final SystemNames names = new SystemNames(file);
        assertThat(names.serviceName(80, Protocol.TCP)).isEqualTo("http");
        assertThat(names.serviceName(53, Protocol.UDP)).isEqualTo("domain");
        assertThat(names.serviceName(53, Protocol.TCP)).isNull();
        assertThat(names.servicePort("www", Protocol.TCP)).isEqualTo(80);
        assertThat(names.servicePort("domain", Protocol.UDP)).isEqualTo(53);
        assertThat(names.servicePort("domain", Protocol.TCP)).isEqualTo(-1);
        assertThat(new SystemNames(dir.resolve("none")).serviceName(80, Protocol.TCP)).isNull();
    }

    @Test
    void shouldResolveLocalhost(@TempDir final Path dir) throws IOException
    {
        final SystemNames names = new SystemNames(dir.resolve("none"));
        assertThat(names.hostAddress("localhost")).isEqualTo(IpAddress.parse("127.0.0.1"));
        assertThat(names.hostAddress("no-such-host.invalid")).isNull();
    }

    @Test
    void shouldFindNoHostForAnEmptyNameOrAnAddressLiteralAsGethostbynameDoes(@TempDir final Path dir)
        throws IOException
    {
        final SystemNames names = new SystemNames(dir.resolve("none"));
        // The JDK's resolver gives the loopback address and an IPv4-mapped address's IPv4 one for these.
        assertThat(names.hostAddress("")).isNull();
        assertThat(names.hostAddress("::ffff:1.2.3.4")).isNull();
        assertThat(names.hostAddress("[::ffff:1.2.3.4]")).isNull();
        assertThat(names.hostAddress("::1")).isNull();
    }

    @Test
    void shouldRefuseAnEmptyHostOrAMappedIpv6LiteralInAServiceAddressAsIpvsadmDoes(@TempDir final Path dir)
        throws IOException
    {
        final SystemNames names = new SystemNames(dir.resolve("none"));
        for (final String service : new String[] {":80", "::ffff:1.2.3.4:80", "::1:80x"})
        {
            final java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            final int status = Ipvsadm.run("ipvsadm", new String[] {"-A", "-t", service},
                new java.io.StringReader(""), new java.io.PrintStream(new java.io.ByteArrayOutputStream()),
                new java.io.PrintStream(err), new Ipvsadm.InMemoryBackend(new IpvsModel()), names);
            assertThat(status).as(service).isEqualTo(2);
            assertThat(err.toString()).as(service).isEqualTo("illegal virtual server address[:port] specified\n");
        }
    }

    @Test
    void shouldSkipCommentedOutLinesAndTakeALineOfJustANameAndAPort(@TempDir final Path dir) throws IOException
    {
        final Path file = dir.resolve("services");
        Files.writeString(file, "#www 80/tcp\nhttp 80/tcp\nntp 123/udp\n");
        final SystemNames names = new SystemNames(file);
        assertThat(names.serviceName(80, Protocol.TCP)).isEqualTo("http");
        assertThat(names.servicePort("#www", Protocol.TCP)).isEqualTo(-1);
        assertThat(names.serviceName(123, Protocol.UDP)).isEqualTo("ntp");
        assertThat(names.servicePort("ntp", Protocol.UDP)).isEqualTo(123);
        // No protocol (a -r before any -t): no name either way.
        assertThat(names.serviceName(80, null)).isNull();
        assertThat(names.servicePort("http", null)).isEqualTo(-1);
    }

    @Test
    void shouldNameLoopbackFromTheHostsFile(@TempDir final Path dir) throws IOException
    {
        final SystemNames names = new SystemNames(dir.resolve("none"));
        assertThat(names.hostName(IpAddress.parse("127.0.0.1"))).isEqualTo("localhost");
    }
}

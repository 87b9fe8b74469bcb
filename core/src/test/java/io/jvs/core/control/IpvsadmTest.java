package io.jvs.core.control;

import io.jvs.core.rules.RuleCommand;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ipvsadm's main and process_options over the in-memory backend: output, error text, exit status, and that a
 * refused command changes nothing.
 */
class IpvsadmTest
{
    private static final String SETUP = String.join("\n",
        "-A -t 10.0.0.100:80 -s wrr",
        "-a -t 10.0.0.100:80 -r 192.168.1.1:8080 -m -w 4",
        "-a -t 10.0.0.100:80 -r 192.168.1.2 -g",
        "-A -u 10.0.0.100:53 -s sh -b sh-port -p 120 -M 255.255.255.0 -o",
        "-a -u 10.0.0.100:53 -r 192.168.1.3 -m",
        "-A -f 5 -6 -s mh",
        "-a -f 5 -6 -r [2001:db8::5]:0 -m -w 2",
        "") ;

    private IpvsModel model;
    private Ipvsadm.InMemoryBackend backend;

    /** One run's output. */
    private record Run(int status, String out, String err)
    {
    }

    private Run run(final String line)
    {
        return run(line, "");
    }

    private Run run(final String line, final String stdin)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final String[] args = line.isEmpty() ? new String[0] : line.split(" ");
        final int status = Ipvsadm.run(args, new StringReader(stdin),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), backend);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @BeforeEach
    void setUp()
    {
        model = new IpvsModel();
        backend = new Ipvsadm.InMemoryBackend(model);
        assertThat(run("-R", SETUP)).isEqualTo(new Run(0, "", ""));
    }

    @Test
    void shouldSaveWhatWasRestoredCanonically()
    {
        final Run save = run("-S -n");
        assertThat(save).isEqualTo(new Run(0, String.join("\n",
            "-A -t 10.0.0.100:80 -s wrr",
            "-a -t 10.0.0.100:80 -r 192.168.1.1:8080 -m -w 4",
            "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -g -w 1",
            "-A -u 10.0.0.100:53 -s sh -p 120 -M 255.255.255.0 -o -b sh-port",
            "-a -u 10.0.0.100:53 -r 192.168.1.3:53 -m -w 1",
            "-A -f 5 -6 -s mh",
            "-a -f 5 -6 -r [2001:db8::5]:0 -m -w 2",
            ""), ""));
        // Restoring the canonical form into an empty table gives the same state.
        final IpvsView before = model.view();
        model.view(IpvsView.empty());
        assertThat(run("-R", save.out()).status()).isZero();
        assertThat(model.view()).isEqualTo(before);
        assertThat(run("-S -n").out()).isEqualTo(save.out());
    }

    @Test
    void shouldRestoreLinesWithIpvsadmWordsBlanksAndCarriageReturns()
    {
        model.view(IpvsView.empty());
        final Run restore = run("--restore",
            "ipvsadm -A -t 10.0.0.1:80\r\n\n   \n\t-a  -t 10.0.0.1:80 -r 10.1.1.1 ipvsadm\n" +
            "-a -t 10.0.0.1:80 -r 10.1.1.2 -w 3");
        assertThat(restore).isEqualTo(new Run(0, "", ""));
        assertThat(run("-S -n").out()).isEqualTo(
            "-A -t 10.0.0.1:80 -s wlc\n-a -t 10.0.0.1:80 -r 10.1.1.1:80 -g -w 1\n" +
            "-a -t 10.0.0.1:80 -r 10.1.1.2:80 -g -w 3\n");
    }

    @Test
    void shouldGoOnAfterAKernelRefusalAndEndWithTheLastLinesStatus()
    {
        final Run restore = run("-R", "-A -t 10.0.0.100:80\n-A -t 10.0.0.7:80\n");
        assertThat(restore).isEqualTo(new Run(0, "", "Service already exists\n"));
        assertThat(model.view().service(Fixtures.tcp("10.0.0.7", 80))).isNotNull();
        assertThat(run("-R", "-A -t 10.0.0.8:80\n-D -t 10.0.0.9:80\n"))
            .isEqualTo(new Run(255, "", "No such service\n"));
        assertThat(run("-R", "-A -t 10.0.0.8:80 -q\n-A -t 10.0.0.10:80\n"))
            .isEqualTo(new Run(0, "", "-q: unknown option\n"));
    }

    @Test
    void shouldStopTheRestoreAtAnOptionCheckWithEarlierLinesApplied()
    {
        final Run restore = run("-R", "-A -t 10.0.0.20:80\n-A -t 10.0.0.21:80 -w 3\n-A -t 10.0.0.22:80\n");
        assertThat(restore).isEqualTo(new Run(2, "", "Illegal 'weight' option with the 'add-service' command\n"));
        assertThat(model.view().service(Fixtures.tcp("10.0.0.20", 80))).isNotNull();
        assertThat(model.view().service(Fixtures.tcp("10.0.0.22", 80))).isNull();
        // A comment is no comment to ipvsadm -R: the line has no command, and the hint ends the restore.
        assertThat(run("-R", "# saved\n-A -t 10.0.0.23:80\n")).isEqualTo(new Run(255, "",
            "Try `ipvsadm -h' or 'ipvsadm --help' for more information.\n"));
        assertThat(run("-R", "-R\n")).isEqualTo(new Run(255, "",
            "Try `ipvsadm -h' or 'ipvsadm --help' for more information.\n"));
    }

    @Test
    void shouldListInsideARestore()
    {
        assertThat(run("-R", "-L --timeout\n").out()).isEqualTo("Timeout (tcp tcpfin udp): 900 120 300\n");
    }

    /** Every refusal of the kernel: ipvs_strerror's words, status 255, nothing changed. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "-A -t 10.0.0.100:80                               | Service already exists",
        "-A -t 10.0.0.1:80 -s fastest                      | Scheduler or persistence engine not found",
        "-A -t 10.0.0.1:80 -s WRR                          | Scheduler or persistence engine not found",
        "-A -u 10.0.0.1:5060 --pe sip -p                   | Scheduler or persistence engine not found",
        "-E -t 10.0.0.1:80 -s rr                           | No such service",
        "-E -t 10.0.0.100:80 -s none                       | Scheduler or persistence engine not found",
        "-D -t 10.0.0.1:80                                 | No such service",
        "-Z -t 10.0.0.1:80                                 | No such service",
        "-a -t 10.0.0.1:80 -r 192.168.1.1                  | Service not defined",
        "-e -t 10.0.0.1:80 -r 192.168.1.1                  | Service not defined",
        "-d -t 10.0.0.1:80 -r 192.168.1.1                  | Service not defined",
        "-a -t 10.0.0.100:80 -r 192.168.1.2                | Destination already exists",
        "-a -t 10.0.0.100:80 -r 192.168.1.1:8080 -m -w 9   | Destination already exists",
        "-e -t 10.0.0.100:80 -r 192.168.1.9                | No such destination",
        "-d -t 10.0.0.100:80 -r 192.168.1.1                | No such destination",
        "-a -t 10.0.0.100:80 -r 192.168.1.7 -x 10 -y 20    | Numerical result out of range",
        "-e -t 10.0.0.100:80 -r 192.168.1.2 -y 1           | Numerical result out of range",
        "-a -t 10.0.0.100:80 -r 224.0.0.1 |" +
            " Invalid operation.  Possibly wrong module version, address not unicast, ...",
        "-a -t 10.0.0.100:80 -r 0.0.0.1 |" +
            " Invalid operation.  Possibly wrong module version, address not unicast, ...",
        "-a -f 5 -6 -r [fe80::1]:0 -m |" +
            " Invalid operation.  Possibly wrong module version, address not unicast, ...",
        "--set 2147484 0 0 |" +
            " Invalid operation.  Possibly wrong module version, address not unicast, ...",
        "--start-daemon master                             | Protocol not available",
        "--stop-daemon master                              | No daemon is running",
    })
    void shouldReportWhatTheKernelRefusesAndChangeNothing(final String line, final String message)
    {
        final IpvsView before = model.view();
        assertThat(run(line)).isEqualTo(new Run(255, "", message + "\n"));
        assertThat(model.view()).isEqualTo(before);
    }

    /** ipvsadm's own checks: fail(2, ...), nothing sent, nothing changed. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "-a -t 10.0.0.100:80 -r 192.168.1.7 -w 2147483648  | illegal weight specified",
        "-A -t 10.0.0.1:0                                  | Zero port specified for non-persistent service",
        "-A -t 10.0.0.100:80 -A                            | invalid option `-A'",
        "-d -t 10.0.0.100:80 |" +
            " You need to supply the 'real-server' option for the 'delete-server' command",
    })
    void shouldFailItsOwnChecksWithStatusTwoAndChangeNothing(final String line, final String message)
    {
        final IpvsView before = model.view();
        assertThat(run(line)).isEqualTo(new Run(2, "", message + "\n"));
        assertThat(model.view()).isEqualTo(before);
    }

    @Test
    void shouldHintAtHelpWithStatus255()
    {
        assertThat(run("-t 10.0.0.1:80")).isEqualTo(new Run(255, "",
            "Try `ipvsadm -h' or 'ipvsadm --help' for more information.\n"));
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = Ipvsadm.run("/usr/sbin/ipvsadm", new String[] {"--frob"}, new StringReader(""),
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8), backend, Names.NUMERIC);
        assertThat(status).isEqualTo(255);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo(
            "Try `/usr/sbin/ipvsadm -h' or '/usr/sbin/ipvsadm --help' for more information.\n");
        assertThat(run("-A -t")).isEqualTo(new Run(255, "", "-t: missing argument\n"));
    }

    @Test
    void shouldListAMissingServiceWithStatusOne()
    {
        assertThat(run("-L -n -t 10.0.0.1:80")).isEqualTo(new Run(1, "", "No such service\n"));
    }

    @Test
    void shouldListLikeTheFormatter()
    {
        final Run list = run("-L -n");
        assertThat(list.status()).isZero();
        assertThat(list.out()).isEqualTo(IpvsadmFormatter.list(model.view(), null, ListFormat.NUMERIC, Names.NUMERIC));
        assertThat(list.out()).startsWith("IP Virtual Server version 1.2.1 (size=4096)\n");
        assertThat(run("-Ln -t 10.0.0.100:80").out()).isEqualTo(String.join("\n",
            "Prot LocalAddress:Port Scheduler Flags",
            "  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn",
            "TCP  10.0.0.100:80 wrr",
            "  -> 192.168.1.1:8080             Masq    4      0          0         ",
            "  -> 192.168.1.2:80               Route   1      0          0         ",
            ""));
        assertThat(run("").out()).isEqualTo(list.out());
        assertThat(run("-L --daemon")).isEqualTo(new Run(0, "", ""));
        assertThat(run("-L -c -n").out()).isEqualTo("IPVS connection entries\n" +
            "pro expire state       source             virtual            destination\n");
    }

    @Test
    void shouldApplyTheChangesOfEveryCommand()
    {
        assertThat(run("-e -t 10.0.0.100:80 -r 192.168.1.2 -w 0 -x 10 -y 5")).isEqualTo(new Run(0, "", ""));
        assertThat(run("-L -n --thresholds -t 10.0.0.100:80").out()).contains(
            "  -> 192.168.1.2:80               10         5          0          0         \n");
        assertThat(run("--set 3600 0 60").status()).isZero();
        assertThat(run("-L --timeout").out()).isEqualTo("Timeout (tcp tcpfin udp): 3600 120 60\n");
        assertThat(run("-d -t 10.0.0.100:80 -r 192.168.1.1:8080").status()).isZero();
        assertThat(run("-D -u 10.0.0.100:53").status()).isZero();
        assertThat(run("-E -f 5 -6 -s rr -p").status()).isZero();
        assertThat(run("-S -n").out()).isEqualTo(String.join("\n",
            "-A -t 10.0.0.100:80 -s wrr",
            "-a -t 10.0.0.100:80 -r 192.168.1.2:80 -g -w 0",
            "-A -f 5 -6 -s rr -p 360",
            "-a -f 5 -6 -r [2001:db8::5]:0 -m -w 2",
            ""));
        assertThat(run("-C").status()).isZero();
        assertThat(run("-S -n").out()).isEmpty();
    }

    @Test
    void shouldZeroCounters()
    {
        final IpvsView view = model.view();
        final List<ServiceView> counted = view.services().stream().map(service -> service
            .withCounters(Fixtures.counters(1, 2, 3, 4, 5, 6, 7, 8, 9, 10))
            .withDestinations(service.destinations().stream().map(d -> d.withCounters(Fixtures.counters(1, 1, 1)))
                .toList())).toList();
        model.view(view.withServices(counted));
        assertThat(run("-Z -t 10.0.0.100:80").status()).isZero();
        assertThat(model.view().service(Fixtures.tcp("10.0.0.100", 80)).counters()).isEqualTo(Counters.ZERO);
        assertThat(model.view().service(Fixtures.tcp("10.0.0.100", 80)).destinations())
            .allMatch(d -> d.counters().equals(Counters.ZERO));
        assertThat(model.view().services().get(1).counters()).isNotEqualTo(Counters.ZERO);
        assertThat(run("-Z").status()).isZero();
        assertThat(model.view().services()).allMatch(s -> s.counters().equals(Counters.ZERO));
    }

    @Test
    void shouldPrintHelpAndVersionOnStandardOutput()
    {
        final Run help = run("-h");
        assertThat(help.status()).isZero();
        assertThat(help.out()).contains("ipvsadm -A|-E SERVICE").contains("ipvsadm --set TCP TCPFIN UDP");
        assertThat(run("--version").out()).contains("ipvsadm v1.31");
    }

    @Test
    void shouldRefuseAFullTableAsOutOfMemory()
    {
        final Ipvsadm.InMemoryBackend small = new Ipvsadm.InMemoryBackend(
            new IpvsModel(IpvsView.empty(), new KernelChecks.Limits(1, 1)));
        assertThat(small.apply(new RuleCommand.AddService(Fixtures.tcp("10.0.0.1", 80),
            io.jvs.core.service.ServiceSettings.of("rr", false)))).isNull();
        assertThat(small.apply(new RuleCommand.AddService(Fixtures.tcp("10.0.0.2", 80),
            io.jvs.core.service.ServiceSettings.of("rr", false)))).isEqualTo(KernelError.NO_MEMORY);
        assertThat(small.apply(new RuleCommand.PutServer(false, Fixtures.tcp("10.0.0.1", 80), Fixtures.ip("10.1.1.1"),
            80, io.jvs.core.service.ForwardMethod.DR, 1, 0, 0))).isNull();
        assertThat(small.apply(new RuleCommand.PutServer(false, Fixtures.tcp("10.0.0.1", 80), Fixtures.ip("10.1.1.2"),
            80, io.jvs.core.service.ForwardMethod.DR, 1, 0, 0))).isEqualTo(KernelError.NO_MEMORY);
        assertThat(KernelError.NO_MEMORY.message()).isEqualTo("Memory allocation problem");
    }

    /**
     * print_sched_flags: flag-1..3 by number for most schedulers; sh and mh name only flags 1 and 2, so an sh
     * service with flag-3 alone is saved as " -b " and listed as " ()".
     */
    @Test
    void shouldWriteSchedulerFlagsAsPrintSchedFlags()
    {
        model.view(IpvsView.empty());
        assertThat(run("-R", "-A -t 10.0.0.1:80 -s rr -b flag-3,flag-1,flag-2\n-A -t 10.0.0.2:80 -s sh -b flag-3\n" +
            "-A -t 10.0.0.3:80 -s mh -b flag-1\n").status()).isZero();
        assertThat(run("-S -n").out()).isEqualTo("-A -t 10.0.0.1:80 -s rr -b flag-1,flag-2,flag-3\n" +
            "-A -t 10.0.0.2:80 -s sh -b \n-A -t 10.0.0.3:80 -s mh -b mh-fallback\n");
        assertThat(run("-L -n").out()).contains("\nTCP  10.0.0.1:80 rr (flag-1,flag-2,flag-3)\n")
            .contains("\nTCP  10.0.0.2:80 sh ()\n").contains("\nTCP  10.0.0.3:80 mh (mh-fallback)\n");
    }

    @Test
    void shouldHaveFlushedBothOutputsWhenItReturns()
    {
        // As ipvsadm's exit flushes stdio: nothing is left in a buffered stream that does not flush by itself.
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = Ipvsadm.run(new String[] {"-S", "-n"}, new StringReader(""),
            new PrintStream(new BufferedOutputStream(out, 1 << 16), false, StandardCharsets.UTF_8),
            new PrintStream(new BufferedOutputStream(err, 1 << 16), false, StandardCharsets.UTF_8), backend);
        assertThat(status).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo(run("-S -n").out()).isNotEmpty();

        final int refused = Ipvsadm.run(new String[] {"-A", "-t", "10.0.0.100:80", "-w", "3"}, new StringReader(""),
            new PrintStream(new BufferedOutputStream(out, 1 << 16), false, StandardCharsets.UTF_8),
            new PrintStream(new BufferedOutputStream(err, 1 << 16), false, StandardCharsets.UTF_8), backend);
        assertThat(refused).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo(run("-A -t 10.0.0.100:80 -w 3").err()).isNotEmpty();
        assertThat(backend.model()).isSameAs(model);
    }
}

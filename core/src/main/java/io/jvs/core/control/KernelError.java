package io.jvs.core.control;

/**
 * A change IPVS refuses, as the kernel reports it (an errno) and as ipvsadm words it for the command that was
 * refused (libipvs {@code ipvs_strerror}: the message depends on both the errno and the libipvs call, so ESRCH is
 * "No such service" for {@code -E} but "Service not defined" for {@code -a}). ipvsadm prints the message alone on
 * standard error and exits with status 255.
 *
 * @param errno   the kernel's error number (Linux values).
 * @param message ipvsadm's words for it.
 */
public record KernelError(int errno, String message)
{
    /** No such process: the service named is missing. */
    public static final int ESRCH = 3;
    /** No such file or directory: a scheduler, persistence engine or destination is missing. */
    public static final int ENOENT = 2;
    /** Out of memory. */
    public static final int ENOMEM = 12;
    /** File exists: the service or destination to add is there already. */
    public static final int EEXIST = 17;
    /** Invalid argument. */
    public static final int EINVAL = 22;
    /** Result out of range: a weight below zero or thresholds the wrong way round. */
    public static final int ERANGE = 34;
    /** Protocol not available. */
    public static final int ENOPROTOOPT = 92;
    /** Protocol not supported. */
    public static final int EPROTONOSUPPORT = 93;

    /** ipvsadm -A of a service that exists (ip_vs_genl_set_cmd). */
    public static final KernelError SERVICE_EXISTS = new KernelError(EEXIST, "Service already exists");
    /** ipvsadm -E, -D or -Z of a missing service. */
    public static final KernelError NO_SUCH_SERVICE = new KernelError(ESRCH, "No such service");
    /** ipvsadm -a, -e or -d on a missing service. */
    public static final KernelError SERVICE_NOT_DEFINED = new KernelError(ESRCH, "Service not defined");
    /** ipvsadm -a of a destination that exists (ip_vs_add_dest). */
    public static final KernelError DESTINATION_EXISTS = new KernelError(EEXIST, "Destination already exists");
    /** ipvsadm -e or -d of a missing destination (ip_vs_edit_dest, ip_vs_del_dest). */
    public static final KernelError NO_SUCH_DESTINATION = new KernelError(ENOENT, "No such destination");
    /** ipvsadm -A or -E with a scheduler or persistence engine the kernel does not have. */
    public static final KernelError NO_SCHEDULER =
        new KernelError(ENOENT, "Scheduler or persistence engine not found");
    /** Out of memory: for jvs, a table is full. */
    public static final KernelError NO_MEMORY = new KernelError(ENOMEM, "Memory allocation problem");
    /** EINVAL, in libipvs's words for every call. */
    public static final KernelError INVALID = new KernelError(EINVAL,
        "Invalid operation.  Possibly wrong module version, address not unicast, ...");
    /** ERANGE has no ipvs_strerror entry, so ipvsadm prints strerror(ERANGE). */
    public static final KernelError OUT_OF_RANGE = new KernelError(ERANGE, "Numerical result out of range");
    /** ENOPROTOOPT, in libipvs's words. */
    public static final KernelError NOT_AVAILABLE = new KernelError(ENOPROTOOPT, "Protocol not available");
    /**
     * What IPVS does and jvs does not (a GUE or GRE tunnel): no ipvs_strerror entry, so ipvsadm prints
     * strerror(EPROTONOSUPPORT), and keepalived, whose libnl maps the errno to NLE_PROTO_MISMATCH and back, logs the
     * same, where EINVAL would say "Possibly wrong module version" and EOPNOTSUPP "Operation not supported with IPv6".
     */
    public static final KernelError NOT_SUPPORTED = new KernelError(EPROTONOSUPPORT, "Protocol not supported");
    /** ipvsadm --stop-daemon when no sync daemon runs. */
    public static final KernelError NO_DAEMON = new KernelError(ESRCH, "No daemon is running");

    /** The exit status ipvsadm ends with after a refused change: its -1 result. */
    public static final int EXIT_STATUS = 255;
}

/**
 * ipvsadm's language and output, as pure Java: what {@code tools/jvs ctl}, the daemon's control socket and its
 * IPVS netlink endpoint share.
 * <ul>
 *   <li>{@link io.jvs.core.control.IpvsadmCommandLine} parses an ipvsadm 1.31 command line (popt syntax, ipvsadm's
 *       own checks and words) into a {@link io.jvs.core.control.IpvsadmRequest}: a change
 *       ({@link io.jvs.core.rules.RuleCommand}) or a question (list, save, connections, timeouts).</li>
 *   <li>{@link io.jvs.core.control.KernelChecks} refuses a change as the kernel would, with ipvsadm's words
 *       ({@link io.jvs.core.control.KernelError}); {@link io.jvs.core.control.TableViews#apply} checks and applies it
 *       to the running {@link io.jvs.core.service.ServiceTable}; {@link io.jvs.core.control.IpvsModel} does the same
 *       on an immutable {@link io.jvs.core.control.IpvsView}.</li>
 *   <li>{@link io.jvs.core.control.IpvsadmFormatter} writes what ipvsadm 1.31 prints for a view, byte for byte,
 *       sorted by {@link io.jvs.core.control.IpvsOrder}.</li>
 *   <li>{@link io.jvs.core.control.Ipvsadm} is ipvsadm's main over an {@link io.jvs.core.control.Ipvsadm.Backend}:
 *       exit statuses, -R, what goes to standard output and standard error.</li>
 * </ul>
 */
package io.jvs.core.control;

// The restricted Pod Security Standard (kubernetes.io/docs/concepts/security/pod-security-standards, the "latest"
// profile), written out control by control as the document states it, for a check that needs no cluster: the
// restricted profile is the baseline's controls and its own. Each control reads the fields the document names, on
// the pod and on every container, init and ephemeral ones included, and a violation names the field and its value.
// No validator of the standard runs offline from npm (the admission controller is Go, in k8s.io/pod-security-admission).

// biome-ignore lint/suspicious/noExplicitAny: a manifest's documents are untyped YAML
type Any = any;

const BASELINE_CAPABILITIES = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
]);
const RESTRICTED_VOLUMES = new Set([
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
]);

/** Every container of the pod, with the path its fields are named by. */
function containersOf(spec: Any): [string, Any][] {
  return (['initContainers', 'containers', 'ephemeralContainers'] as const).flatMap((list) =>
    ((spec[list] ?? []) as Any[]).map((c, i): [string, Any] => [`spec.${list}[${i}]`, c]),
  );
}

/**
 * The restricted profile's violations by a pod template (`metadata` and `spec`), each as "control: field = value";
 * none when the pod is admitted under `pod-security.kubernetes.io/enforce: restricted`.
 */
export function restrictedViolations(template: { metadata?: Any; spec: Any }): string[] {
  const { spec } = template;
  const annotations: Record<string, string> = template.metadata?.annotations ?? {};
  const pod = spec.securityContext ?? {};
  const containers = containersOf(spec);
  const contexts: [string, Any][] = [
    ['spec.securityContext', pod],
    ...containers.map(([path, c]): [string, Any] => [`${path}.securityContext`, c.securityContext ?? {}]),
  ];
  const found: string[] = [];
  const fail = (control: string, field: string, value: unknown) =>
    found.push(`${control}: ${field} = ${JSON.stringify(value)}`);

  // Baseline.
  for (const [path, context] of contexts) {
    const hostProcess = context.windowsOptions?.hostProcess;
    if (hostProcess !== undefined && hostProcess !== false) {
      fail('HostProcess', `${path}.windowsOptions.hostProcess`, hostProcess);
    }
  }
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC']) {
    if (spec[field] !== undefined && spec[field] !== false) fail('Host Namespaces', `spec.${field}`, spec[field]);
  }
  for (const [path, c] of containers) {
    const context = c.securityContext ?? {};
    if (context.privileged !== undefined && context.privileged !== false) {
      fail('Privileged Containers', `${path}.securityContext.privileged`, context.privileged);
    }
    for (const added of context.capabilities?.add ?? []) {
      if (!BASELINE_CAPABILITIES.has(added)) fail('Capabilities', `${path}.securityContext.capabilities.add`, added);
    }
    for (const [i, port] of ((c.ports ?? []) as Any[]).entries()) {
      if (port.hostPort !== undefined && port.hostPort !== 0)
        fail('Host Ports', `${path}.ports[${i}].hostPort`, port.hostPort);
    }
    if (context.procMount !== undefined && context.procMount !== 'Default') {
      fail('/proc Mount Type', `${path}.securityContext.procMount`, context.procMount);
    }
  }
  for (const [i, volume] of ((spec.volumes ?? []) as Any[]).entries()) {
    if (volume.hostPath !== undefined) fail('HostPath Volumes', `spec.volumes[${i}].hostPath`, volume.hostPath);
  }
  for (const [path, context] of contexts) {
    const appArmor = context.appArmorProfile?.type;
    if (appArmor !== undefined && appArmor !== 'RuntimeDefault' && appArmor !== 'Localhost') {
      fail('AppArmor', `${path}.appArmorProfile.type`, appArmor);
    }
    const se = context.seLinuxOptions ?? {};
    if (se.type !== undefined && !SELINUX_TYPES.has(se.type)) fail('SELinux', `${path}.seLinuxOptions.type`, se.type);
    for (const field of ['user', 'role']) {
      if (se[field] !== undefined && se[field] !== '') fail('SELinux', `${path}.seLinuxOptions.${field}`, se[field]);
    }
    if (context.seccompProfile?.type === 'Unconfined') fail('Seccomp', `${path}.seccompProfile.type`, 'Unconfined');
  }
  for (const [name, value] of Object.entries(annotations)) {
    if (!name.startsWith('container.apparmor.security.beta.kubernetes.io/')) continue;
    if (value !== 'runtime/default' && !value.startsWith('localhost/')) fail('AppArmor', `annotation ${name}`, value);
  }
  for (const sysctl of (pod.sysctls ?? []) as Any[]) {
    if (!SAFE_SYSCTLS.has(sysctl.name)) fail('Sysctls', 'spec.securityContext.sysctls[*].name', sysctl.name);
  }

  // Restricted.
  for (const [i, volume] of ((spec.volumes ?? []) as Any[]).entries()) {
    const kinds = Object.keys(volume).filter((key) => key !== 'name');
    for (const kind of kinds) if (!RESTRICTED_VOLUMES.has(kind)) fail('Volume Types', `spec.volumes[${i}]`, kind);
  }
  for (const [path, c] of containers) {
    const context = c.securityContext ?? {};
    if (context.allowPrivilegeEscalation !== false) {
      fail(
        'Privilege Escalation',
        `${path}.securityContext.allowPrivilegeEscalation`,
        context.allowPrivilegeEscalation,
      );
    }
    // Non-root: set true on the pod, or on each container; false nowhere.
    if (context.runAsNonRoot === false || (context.runAsNonRoot === undefined && pod.runAsNonRoot !== true)) {
      fail('Running as Non-root', `${path}.securityContext.runAsNonRoot`, context.runAsNonRoot);
    }
    // Seccomp: RuntimeDefault or Localhost on the pod, or on each container; Unconfined nowhere (baseline's).
    const seccomp = context.seccompProfile?.type ?? pod.seccompProfile?.type;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') {
      fail('Seccomp', `${path}.securityContext.seccompProfile.type`, seccomp);
    }
    const capabilities = context.capabilities ?? {};
    if (!((capabilities.drop ?? []) as string[]).includes('ALL')) {
      fail('Capabilities', `${path}.securityContext.capabilities.drop`, capabilities.drop);
    }
    for (const added of capabilities.add ?? []) {
      if (added !== 'NET_BIND_SERVICE') fail('Capabilities', `${path}.securityContext.capabilities.add`, added);
    }
  }
  if (pod.runAsNonRoot === false) fail('Running as Non-root', 'spec.securityContext.runAsNonRoot', false);
  for (const [path, context] of contexts) {
    if (context.runAsUser === 0) fail('Running as Non-root user', `${path}.runAsUser`, 0);
  }
  return found;
}

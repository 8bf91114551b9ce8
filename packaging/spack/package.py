# SPDX-License-Identifier: BSD-3-Clause
#
# Spack recipe for jouleprof (packaging/README.md says how to use it). Written for Spack 1.x,
# whose builtin packages live in spack/spack-packages (spack_repo.builtin); the dependency
# names below were checked there (see packaging/README.md for the commit).
#
# What it builds: the CLI, the C marker API (libjouleprof.so.0, header, pkg-config file,
# CMake package), the man pages, and by variant the daemon, the Python package and the
# Slurm SPANK plugin. Never the reference workloads (LibTorch), tests or benchmarks.
#
# What it does NOT do: anything that needs root. jouleprofd's systemd unit, its group, its
# root-owned config in /etc and /run/jouleprof are left to an administrator; the steps, with
# this install's paths, are written to PREFIX/share/jouleprof/spack-post-install.txt and
# printed at the end of the install.

import glob
import os

try:
    from spack_repo.builtin.build_systems.cmake import CMakePackage
except ImportError:  # Spack before 1.0: the build systems came with spack.package
    from spack.package import CMakePackage  # type: ignore[no-redef]

from spack.package import *


class Jouleprof(CMakePackage):
    """jouleprof runs a command and measures how much energy the node and its parts (CPU
    packages, DRAM, GPUs, the rest of the node) use while it runs, from RAPL, hwmon, Cray
    pm_counters, NVML, ROCm SMI, IPMI and Redfish, into one trace that reports, comparisons,
    studies and sweeps read. On a shared node it says which share of the energy is the
    job's. jouleprofd, the node daemon, serves measurements to users who cannot read the
    counters themselves."""

    # No public home or release tarball yet: build from a checkout (packaging/README.md):
    #   spack develop --path /path/to/jouleprof jouleprof@=0.1.0
    # For a release, add its address and the tarball's checksum, e.g. for a tarball made with
    #   git archive --prefix=jouleprof-0.1.0/ -o jouleprof-0.1.0.tar.gz HEAD
    # url = "https://<where releases are published>/jouleprof-0.1.0.tar.gz"
    # version("0.1.0", sha256="<sha256sum of that tarball>")
    version("0.1.0")

    license("BSD-3-Clause")

    variant(
        "daemon",
        default=True,
        description="Install jouleprofd, the node daemon (its root set-up is printed, not done)",
    )
    variant(
        "slurm",
        default=False,
        description="Build the Slurm SPANK plugin (installed, not activated)",
    )
    variant(
        "python", default=True, description="Build the Python package (import jouleprof)"
    )
    variant(
        "nvml",
        default=False,
        description="NVIDIA GPUs: NVML is loaded with dlopen from the driver; no build dependency",
    )
    variant(
        "rocm",
        default=False,
        description="AMD GPUs: ROCm SMI (rocm-smi-lib) is loaded with dlopen; put on the RPATH",
    )

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")
    # scripts/man.py generates the man pages at build time (always, whatever +python says).
    depends_on("python@3.9:", type="build")

    # The versions jouleprof is tested with (Debian 12's) as lower bounds.
    depends_on("fmt@9:")
    depends_on("sqlite@3.31:")
    depends_on("cli11@2.1:")
    depends_on("nlohmann-json@3.11:")
    depends_on("tomlplusplus@3.3:")
    # libcurl (Redfish) and OpenSSL 3's libcrypto (IPMI over LAN): only their headers are
    # compiled against; "libcurl.so.4" and "libcrypto.so.3" are loaded with dlopen when such
    # a source is configured. As link dependencies their library folders are on the RPATH
    # Spack's compiler wrapper gives the programs, which dlopen() searches.
    depends_on("curl")
    depends_on("openssl@3:")

    # The Python package: a pybind11 extension plus Python files, installed into the
    # prefix's site-packages; `spack load jouleprof` puts them on PYTHONPATH.
    extends("python", when="+python")
    depends_on("python@3.9:", type=("build", "link", "run"), when="+python")
    depends_on("py-pybind11", type="build", when="+python")

    # SPANK: only slurm/spank.h is needed (the plugin does not link libslurm: slurmstepd and
    # srun supply the symbols). Use the Slurm the cluster runs (an external): the SPANK ABI
    # may change between Slurm major releases.
    depends_on("slurm", type="build", when="+slurm")

    # NVML (+nvml): libnvidia-ml.so.1 comes with the NVIDIA driver and is found by the
    # dynamic loader; jouleprof needs no header or library from CUDA (its own declarations,
    # src/sensors/nvml/api.hpp), and CUDA's lib64/stubs/libnvidia-ml.so must never be
    # loaded. So +nvml adds no dependency; it only records the note in the post-install file.
    # ROCm SMI (+rocm): librocm_smi64.so is loaded with dlopen too (no header needed); as a
    # link dependency, rocm-smi-lib's library folder is on the programs' RPATH, so dlopen()
    # finds it without --rocm-library. Prefer the site's ROCm as an external.
    depends_on("rocm-smi-lib", type=("build", "link"), when="+rocm")

    conflicts("%gcc@:11", msg="jouleprof is C++23 (std::expected): GCC 12 or newer")
    conflicts("platform=darwin", msg="jouleprof measures Linux nodes only")
    conflicts("platform=windows", msg="jouleprof measures Linux nodes only")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("JP_BUILD_TESTS", False),
            self.define("JP_BUILD_BENCH", False),
            self.define("JP_BUILD_WORKLOADS", False),
            self.define("JP_SELF_CONTAINED", False),
            self.define_from_variant("JP_BUILD_PYTHON", "python"),
            self.define_from_variant("JP_BUILD_SPANK", "slurm"),
            # The man pages' generator: Spack's Python, not whatever python3 is on PATH.
            self.define("JP_PYTHON3", spec["python"].command.path),
        ]
        # A tarball has no .git: --version then names the version (as debian/rules does).
        # A `spack develop` checkout keeps git's commit.
        if not os.path.isdir(os.path.join(self.stage.source_path, ".git")):
            args.append(self.define("JP_COMMIT", str(spec.version)))
        if spec.satisfies("+python"):
            args += [
                self.define("Python_EXECUTABLE", spec["python"].command.path),
                # Relative to the prefix: lib/pythonX.Y/site-packages.
                self.define("JP_PYTHON_INSTALL_DIR", spec["python"].package.platlib),
            ]
        # The project has no switch for the daemon (it is always built): ~daemon removes
        # what it installed (remove_unselected below).
        return args

    def _installed(self, *patterns):
        """Files under the prefix matching any of the glob patterns (relative to it)."""
        found = []
        for pattern in patterns:
            found += glob.glob(os.path.join(self.prefix, pattern))
        return sorted(set(found))

    def _remove(self, paths):
        for path in paths:
            if os.path.isfile(path) or os.path.islink(path):
                os.remove(path)
                # Folders the removal left empty, up to the prefix.
                parent = os.path.dirname(path)
                while parent.startswith(str(self.prefix) + os.sep) and not os.listdir(parent):
                    os.rmdir(parent)
                    parent = os.path.dirname(parent)

    @run_after("install")
    def remove_unselected(self):
        if self.spec.satisfies("~daemon"):
            self._remove(
                self._installed(
                    "sbin/jouleprofd",
                    "etc/jouleprof/jouleprofd.toml",
                    "lib*/systemd/system/jouleprofd.service",
                    "share/man/man8/jouleprofd.8*",
                    "share/man/man5/jouleprofd.toml.5*",
                )
            )

    def _notes(self):
        """The post-install notes: what an administrator does, with this install's paths."""
        spec = self.spec
        prefix = str(self.prefix)
        docs = os.path.join(prefix, "share", "doc", "jouleprof", "docs")
        lines = [f"jouleprof {spec.version} installed by Spack in {prefix}."]
        if spec.satisfies("+daemon") or spec.satisfies("+slurm"):
            lines += ["Nothing was done as root. What remains, for an administrator:", ""]
        else:
            lines += ["Nothing in it needs root.", ""]
        if spec.satisfies("+daemon"):
            sbin = os.path.join(prefix, "sbin", "jouleprofd")
            config = os.path.join(prefix, "etc", "jouleprof", "jouleprofd.toml")
            units = self._installed("lib*/systemd/system/jouleprofd.service")
            default_unit = os.path.join(prefix, "lib", "systemd", "system", "jouleprofd.service")
            unit = units[0] if units else default_unit
            share = os.path.join(prefix, "share", "jouleprof")
            lines += [
                f"jouleprofd, the node daemon ({docs}/daemon.md)",
                "-" * 40,
                "It runs as root and loads its libraries from this prefix and from the Spack",
                "prefixes on its RPATH: every one of them must be owned by root and writable",
                "by root only (a root-owned Spack install tree), else whoever can write there",
                "gets root. As root, on every node that runs it:",
                "",
                "1. The group that full resolution can be granted to:",
                f"     install -m 0644 {share}/jouleprofd.sysusers \\",
                "       /etc/sysusers.d/jouleprofd.conf",
                "     systemd-sysusers /etc/sysusers.d/jouleprofd.conf",
                "   (or: groupadd --system jouleprof)",
                "2. The config, root-owned, where jouleprofd looks by default; then edit its",
                "   [access] rules (e.g. full_resolution_groups = [\"jouleprof\"]) BEFORE step 5:",
                f"     install -D -m 0644 -o root -g root {config} /etc/jouleprof/jouleprofd.toml",
                "3. The unit: it names this prefix's config, which the Spack user can write;",
                "   install a copy that names /etc/jouleprof/jouleprofd.toml instead:",
                f"     sed 's|{config}|/etc/jouleprof/jouleprofd.toml|' {unit} \\",
                "       > /etc/systemd/system/jouleprofd.service",
                "     systemctl daemon-reload",
                "4. /run/jouleprof, the socket's folder (the unit's RuntimeDirectory= makes it",
                "   when it starts; this makes it at boot too):",
                f"     install -m 0644 {share}/jouleprofd.tmpfiles \\",
                "       /etc/tmpfiles.d/jouleprofd.conf",
                "     systemd-tmpfiles --create /etc/tmpfiles.d/jouleprofd.conf",
                "5. Check the config and the sensors, then start it:",
                f"     {sbin} --check --config /etc/jouleprof/jouleprofd.toml",
                "     systemctl enable --now jouleprofd",
                "",
            ]
        if spec.satisfies("+slurm"):
            plugins = self._installed("lib*/slurm/jouleprof_spank.so")
            plugin = plugins[0] if plugins else "(not built: slurm/spank.h was not found)"
            lines += [
                f"The Slurm SPANK plugin ({docs}/slurm.md)",
                "-" * 40,
                f"Installed, not active: {plugin}",
                f"It runs {os.path.join(prefix, 'bin', 'jouleprof')} for every step; slurmstepd",
                "loads it as root, so the same root-owned rule applies. Built against",
                f"slurm@{spec['slurm'].version}: rebuild after a Slurm major upgrade. To turn it",
                "on, as root, on every compute node and login node (plugstack.conf must include",
                "plugstack.conf.d/*.conf):",
                f"     echo 'optional {plugin}' > /etc/slurm/plugstack.conf.d/jouleprof.conf",
                "",
            ]
        gpu = []
        if spec.satisfies("+nvml"):
            gpu += [
                "NVML: libnvidia-ml.so.1 comes with the NVIDIA driver and is found by the",
                "dynamic loader. Elsewhere: jouleprof --nvml-library PATH, or",
                '[sensors.nvml] library = "PATH" in the config.',
            ]
        if spec.satisfies("+rocm"):
            libs = find_libraries(
                "librocm_smi64", root=spec["rocm-smi-lib"].prefix, shared=True, recursive=True
            )
            rocm = libs[0] if libs else f"{spec['rocm-smi-lib'].prefix}/lib/librocm_smi64.so"
            gpu += [
                f"ROCm SMI: {rocm} (on the programs' RPATH). To name",
                "it explicitly: jouleprof --rocm-library PATH, or",
                '[sensors.rocm_smi] library = "PATH" in the config.',
            ]
        if gpu:
            lines += ["GPUs", "----"] + gpu + [""]
        if spec.satisfies("+python"):
            lines += [
                "Python: `spack load jouleprof` puts "
                f"{os.path.join(prefix, spec['python'].package.platlib)} on PYTHONPATH.",
                "",
            ]
        return lines

    @run_after("install")
    def post_install_notes(self):
        share = join_path(self.prefix, "share", "jouleprof")
        mkdirp(share)
        if self.spec.satisfies("+daemon"):
            # The same lines as packaging/rpm/jouleprofd.{sysusers,tmpfiles}, for the steps.
            with open(join_path(share, "jouleprofd.sysusers"), "w") as f:
                f.write('# full resolution for members, once [access] lists the group\n')
                f.write("g jouleprof -\n")
            with open(join_path(share, "jouleprofd.tmpfiles"), "w") as f:
                f.write("# the daemon's socket folder\n")
                f.write("d /run/jouleprof 0755 root root -\n")
        notes = join_path(share, "spack-post-install.txt")
        text = "\n".join(self._notes()) + "\n"
        with open(notes, "w") as f:
            f.write(text)
        if self.spec.satisfies("+daemon") or self.spec.satisfies("+slurm"):
            tty.msg(f"jouleprof: root set-up left to an administrator; the steps: {notes}")
            tty.msg(text)

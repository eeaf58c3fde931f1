// SPDX-License-Identifier: GPL-2.0
/*
 * Where the C library's free() is, for its uprobe: see heap_probe.h.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/string.h>
#include <linux/zalloc.h>

#include "heap_probe.h"
#include "probe.h"
#include "spec.h"

/* The value of dynamic symbol @name (a function) in @elf, or 0. */
static u64 elf__dynsym(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			n = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name))
				return sym.st_value;
		}
	}
	return 0;
}

int refcnt_heap_probe__resolve(struct refcnt_heap_probe *hp)
{
	Dl_info info;
	Elf *elf;
	u64 vaddr;
	int fd, err = -ENOENT;

	memset(hp, 0, sizeof(*hp));
	/* glibc's, whose chunks the size word is of: not a sanitizer's nor a PLT's */
	if (!dladdr((void *)free, &info) || !info.dli_fname ||
	    !strstarts(basename(info.dli_fname), "libc.so"))
		return -ENOENT;
	fd = open(info.dli_fname, O_RDONLY);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	vaddr = elf ? elf__dynsym(elf, REFCNT_FREE_FUNC) : 0;
	if (vaddr && !refcnt_elf__file_offset(elf, vaddr, &hp->offset)) {
		hp->lib = strdup(info.dli_fname);
		err = hp->lib ? 0 : -ENOMEM;
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

void refcnt_heap_probe__exit(struct refcnt_heap_probe *hp)
{
	zfree(&hp->lib);
}

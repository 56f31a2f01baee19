"""`boardrules lsp`: a Language Server Protocol server for rule packs (the `lsp` extra installs pygls).

One module per job: `workspace` runs `check`'s own pipeline over the editor's unsaved buffers, `index` knows
where every name is declared and used, `complete` and `hover` answer from them, `server` is the protocol glue.
Everything but `server` is plain Python over the checker's results, so it is tested without a client too.
"""

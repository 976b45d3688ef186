"""AgentV formats: one package per runtime generation (v2 in `formats/v2/`, 4.x in `formats/v4/`)
over the shared core (`engine/`, `checks/`), each seen by its callers as one `Format`
(`formats.protocol`) held by `formats.registry`, and chosen per file by `formats.runtime`."""

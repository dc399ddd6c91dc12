"""Human evaluation campaigns, pure: protocols as data, seeded planning, agreement and correlation."""

"""Human evaluation campaigns (issue 16), pure: protocols as data, seeded planning, agreement and correlation."""

"""Result-file parsers: each turns an uploaded file into Predictions plus errors naming file, line and field."""
